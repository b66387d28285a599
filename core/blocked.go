package core

import (
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The blocked-call report: a fiber that keeps the loop's goroutine blocked
// in the runtime or a syscall (net/http's client, time.Sleep, a channel, a
// lock, a blocking read) for blockedAfter is reported once per call site, on
// by default. Everything else of the loop waits meanwhile, and nothing else
// would say so: the watchdog is opt-in, and its thresholds are far above the
// few milliseconds that serialize a server.
//
// The loop and a sampler goroutine share one atomic word, l.obs: its bit
// blkProbe is set when the sampler asks to be told that the run in progress
// ended, blkParked when the sampler sleeps and asks to be woken, and
// obsWatchdog, for good, when the loop has a watchdog, so that one load
// tells the loop whether either needs it. The loop tests it where a run of
// user code begins or pauses, when a blocking wait in the driver returns,
// and when a run of the loop starts: one load and a branch where it tested
// the watchdog's pointer, taken for the sampler at most once per sampling
// period, where it clears its bits (and wakes a parked sampler). A microtask
// pays nothing: a batch of microtasks counts as one run. The sampler wakes
// every blockedPeriod while the loop runs and is not waiting in the driver;
// a probe still set blockedAfter after the sampler set it means one run has
// held the goroutine all along. The sampler then finds that fiber's stack in
// the goroutine profile (as the watchdog does, watchdogstack.go: no lock of
// the loop held, the world stopped twice briefly) and reports it only if the
// fiber is parked in the runtime or in a syscall, not running Go code: a
// long computation is the watchdog's business, not this report's. A run that
// stays blocked is looked at again after twice its age so far. Two looks are
// apart by at least 20 times what the last profile cost, so that the sampler
// takes a few percent of a core at most however many goroutines are alive,
// and by a gap that doubles, up to blockedBackoff, while looks find nothing
// new to report.

// EnvBlocked is the environment variable that turns the blocked-call
// report off for every loop core.New makes: EVENTLOOP_BLOCKED=0 (or off,
// false); unset, empty, 1, on or true leave it on. core.New takes a value
// it cannot read for on (New cannot fail); eventloop.New and
// eventloop.NewWithDriver return an error naming it. WithBlockedReport
// overrides it.
const EnvBlocked = "EVENTLOOP_BLOCKED"

// BlockedFromEnv returns whether EVENTLOOP_BLOCKED leaves the blocked-call
// report on, and an error naming the variable and its value when it is
// none of those EnvBlocked lists (on, then).
func BlockedFromEnv() (on bool, err error) {
	switch v := os.Getenv(EnvBlocked); strings.ToLower(v) {
	case "", "1", "on", "true":
		return true, nil
	case "0", "off", "false":
		return false, nil
	default:
		return true, fmt.Errorf("eventloop: %s=%q: want 0 (or off, false) to turn the blocked-call report off, 1 (or on, true) for on", EnvBlocked, v)
	}
}

const (
	blockedAfter  = 5 * time.Millisecond
	blockedPeriod = blockedAfter / 2
	// blockedQuiet is how many samples in a row find the loop idle, or
	// waiting in the driver, before the sampler sleeps until the loop
	// wakes it: about 20 ms, so that a busy loop seldom has to.
	blockedQuiet = 8
	// blockedBackoff is the longest the sampler waits between two looks
	// that find nothing new: a program that keeps blocking at a site
	// reported already pays a goroutine profile a second at most.
	blockedBackoff = time.Second
)

// The bits of l.obs.
const (
	blkProbe    = 1
	blkParked   = 2
	blkBits     = blkProbe | blkParked
	obsWatchdog = 4
)

// BlockedCall is a blocked-call report: a fiber of the loop has held the
// loop's goroutine for Elapsed (at least) while parked in the runtime or a
// syscall, in Call, which Site called. Nothing else of the loop ran
// meanwhile: no callback, timer or connection.
type BlockedCall struct {
	Elapsed time.Duration
	// Call is the function the fiber is blocked in, as the code at Site
	// called it: "net/http.Get", "time.Sleep", "runtime.chanrecv1",
	// "sync.(*Mutex).Lock", "syscall.Read".
	Call string
	// Site is the function that called it, with its File and Line: the
	// first frame of the stack outside the standard library (and
	// golang.org/x). A site is reported once per loop.
	Site string
	File string
	Line int
	// Hint is what a package built on the loop says of Stack (see
	// AddWatchdogHint): package httpserver names the handler.
	Hint string
	// Fix is what to do: package httpclient for net/http's client, else
	// core.Await (or httpserver.Blocking for a handler, which Hint says).
	Fix string
	// Stack is the fiber's stack, innermost frame first.
	Stack string
}

// String describes the report as the default report function logs it.
func (b BlockedCall) String() string {
	var s strings.Builder
	s.WriteString("eventloop: a fiber has blocked the loop's goroutine for ")
	s.WriteString(b.Elapsed.Round(100 * time.Microsecond).String())
	s.WriteString(" so far, in ")
	s.WriteString(b.Call)
	s.WriteString(" called by ")
	s.WriteString(b.Site)
	s.WriteString(" (")
	s.WriteString(b.File)
	s.WriteString(":")
	s.WriteString(strconv.Itoa(b.Line))
	s.WriteString("); nothing else of the loop runs meanwhile. ")
	if b.Hint != "" {
		// A hint is a clause (see AddWatchdogHint): here it is a sentence.
		s.WriteString(strings.ToUpper(b.Hint[:1]))
		s.WriteString(b.Hint[1:])
		s.WriteString(". ")
	}
	s.WriteString(b.Fix)
	s.WriteString(" (Reported once per call site; ")
	s.WriteString(EnvBlocked)
	s.WriteString("=0 turns these reports off.)\n")
	s.WriteString(b.Stack)
	return s.String()
}

// WithBlockedReport sets what receives the blocked-call reports (see
// BlockedCall): report is called from a goroutine of the loop's own, one
// report at a time, once per call site; a report function that panics is
// recovered. nil turns the reports off. Without this option a loop logs
// them with the standard library's logger, as the watchdog does (the
// loop's error handler cannot run while the loop is blocked, and a report
// is no error of the program), unless EVENTLOOP_BLOCKED=0.
//
// The loop pays one load and a branch where a callback begins or a fiber
// suspends, nothing per microtask; the sampler's goroutine starts with the
// first Run, ends with Close, and sleeps while the loop is idle or waits
// in the driver.
func WithBlockedReport(report func(BlockedCall)) Option {
	return func(l *Loop) {
		l.blk = nil
		if report != nil {
			l.blk = newBlockedWatch(report)
		}
	}
}

type blockedWatch struct {
	report func(BlockedCall)
	needle []byte // the label of the loop's fibers in a goroutine profile
	wake   chan struct{}
	quit   chan struct{}
	exited chan struct{}

	started, stopped bool // loop-owned

	// The sampler's own.
	seen        map[string]bool // the call sites reported
	panicLogged bool
	examined    func(stack string, blocked bool) // tests: after each look at a stack, and its report
}

func newBlockedWatch(report func(BlockedCall)) *blockedWatch {
	return &blockedWatch{report: report, wake: make(chan struct{}, 1)}
}

func logBlocked(b BlockedCall) { log.Print(b.String()) }

// blockedRunEnds: the run the sampler probes has ended, or the sampler
// sleeps until the loop does something (out of line: taken at most once
// per sampling period).
//
//go:noinline
func (l *Loop) blockedRunEnds() {
	if l.clearObs(blkParked|blkProbe)&blkParked != 0 {
		select {
		case l.blk.wake <- struct{}{}:
		default:
		}
	}
}

// clearObs clears bits of l.obs, and returns those that were set.
func (l *Loop) clearObs(bits uint32) uint32 {
	for {
		v := atomic.LoadUint32(&l.obs)
		if v&bits == 0 || atomic.CompareAndSwapUint32(&l.obs, v, v&^bits) {
			return v & bits
		}
	}
}

// setObs sets bit, one of the sampler's, in l.obs if neither of them is:
// false if one is.
func (l *Loop) setObs(bit uint32) bool {
	for {
		v := atomic.LoadUint32(&l.obs)
		if v&blkBits != 0 {
			return false
		}
		if atomic.CompareAndSwapUint32(&l.obs, v, v|bit) {
			return true
		}
	}
}

// blockedStart starts the sampler with the first run of the loop.
func (l *Loop) blockedStart() {
	b := l.blk
	if b.started || b.stopped {
		return
	}
	b.started = true
	l.FiberContext()
	b.needle = []byte(`"eventloop.loop":"` + l.mark.loop + `"`)
	b.quit = make(chan struct{})
	b.exited = make(chan struct{})
	go b.run(l)
}

// blockedStop ends the sampler.
func (l *Loop) blockedStop() {
	b := l.blk
	b.stopped = true
	if b.started {
		close(b.quit)
		<-b.exited
	}
}

// run is the sampler goroutine.
func (b *blockedWatch) run(l *Loop) {
	defer close(b.exited)
	t := time.NewTicker(blockedPeriod)
	defer t.Stop()
	// since: when the probe was set (zero: the loop has been idle since);
	// next: when to look at the run.
	var since, next time.Time
	// earliest: no look before, whatever the run; backoff grows while looks
	// find nothing new to report.
	var earliest time.Time
	var backoff time.Duration
	quiet := 0
	for {
		select {
		case <-b.quit:
			return
		case <-t.C:
		case <-b.wake:
		}
		if !l.entered.Load() || l.sleeping.Load() {
			since = time.Time{} // a probe set before is not one run's
			if quiet++; quiet < blockedQuiet {
				continue
			}
			// Sleep; a loop that runs again meanwhile finds blkParked
			// and wakes this, or this finds it running (the order of
			// Post's wakeup).
			t.Stop()
			l.clearObs(blkProbe)
			l.setObs(blkParked)
			if !l.entered.Load() || l.sleeping.Load() || l.clearObs(blkParked) == 0 {
				select {
				case <-b.quit:
					return
				case <-b.wake:
				}
			}
			quiet = 0
			t.Reset(blockedPeriod)
			continue
		}
		quiet = 0
		now := time.Now()
		if l.setObs(blkProbe) || since.IsZero() {
			since, next = now, later(now.Add(blockedAfter), earliest)
			continue
		}
		if now.Before(next) {
			continue
		}
		age := now.Sub(since)
		cost, reported := b.look(l, age)
		if reported {
			backoff = 0
		} else {
			backoff = min(max(2*backoff, blockedAfter), blockedBackoff)
		}
		earliest = now.Add(max(20*cost, backoff))
		next = later(now.Add(age), earliest)
	}
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// look takes the stack of the fiber whose run has held the loop for
// elapsed, and reports it if it is blocked at a site not reported yet. It
// returns what it cost, and whether it reported.
func (b *blockedWatch) look(l *Loop, elapsed time.Duration) (cost time.Duration, reported bool) {
	start := time.Now()
	s := profileScan{needle: b.needle}
	err := pprof.Lookup("goroutine").WriteTo(&s, 1)
	cost = time.Since(start)
	// A stack taken after the run ended may be a later run's.
	if err != nil || s.found != 1 || atomic.LoadUint32(&l.obs)&blkProbe == 0 {
		return cost, false
	}
	c, blocked := blockedAt(s.stack)
	if b.examined != nil {
		defer b.examined(c.Stack, blocked)
	}
	if !blocked {
		return cost, false
	}
	key := c.Site + " " + c.File + ":" + strconv.Itoa(c.Line)
	if b.seen[key] {
		return cost, false
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.seen[key] = true
	c.Elapsed = elapsed + time.Since(start)
	c.Hint = watchdogHint(c.Stack)
	b.call(c)
	return cost, true
}

// call hands c to the report function; a panic there is recovered, and the
// first one logged.
func (b *blockedWatch) call(c BlockedCall) {
	defer func() {
		if r := recover(); r != nil && !b.panicLogged {
			b.panicLogged = true
			log.Printf("eventloop: the blocked-call report function panicked (recovered; later panics are not logged): %v", r)
		}
	}()
	b.report(c)
}
