package core

import (
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The watchdog (WithWatchdog, EVENTLOOP_DEBUG_SLOW) reports a callback,
// microtask, post or error handler that runs past a threshold while it is
// still running, from a goroutine of its own: the loop is stuck, so nothing
// can go through it.
//
// The loop and the watchdog share one atomic word, state: 0 while nothing
// runs, else the start of the run in progress ((start+1)<<2), which of two
// records describes it (bit 1) and whether the watchdog has claimed it to
// report (bit 0). Starting a run is a clock read, plain writes to the
// record the watchdog cannot be reading, and one Swap that also ends the
// run before it; a batch of microtasks or callbacks ends with one more Swap
// to 0 where the fiber stops running user code (it parks, suspends, ends
// its task or ticks). The watchdog polls state every threshold/4: a run
// older than the threshold is claimed with a compare-and-swap, under mu,
// and its record copied while still under mu; its fiber's stack is taken
// after mu is released (watchdogstack.go), so that a loop ending the run
// meanwhile never waits for a stack dump. The loop, finding the claim bit
// when it ends that run, takes mu (so that the record is not rewritten
// while the watchdog copies it) and leaves a Done report for the watchdog
// to make. An unwatched loop pays one branch per microtask batch, per
// callback and per tick.

// EnvDebugSlow is the environment variable that turns the watchdog on for
// every loop core.New makes, with a threshold in time.ParseDuration's
// syntax: EVENTLOOP_DEBUG_SLOW=100ms (0, like unset, is off). Reports go
// to the standard library's logger. core.New ignores a value it cannot
// use (New cannot fail);
// eventloop.New and eventloop.NewWithDriver return an error naming it.
// WithWatchdog overrides it.
const EnvDebugSlow = "EVENTLOOP_DEBUG_SLOW"

// DebugSlowFromEnv returns the threshold EVENTLOOP_DEBUG_SLOW sets: 0 with
// a nil error when it is unset, empty or 0 (the watchdog off), and an
// error naming the variable and its value when that is not a duration of
// 0 or more.
func DebugSlowFromEnv() (time.Duration, error) {
	v := os.Getenv(EnvDebugSlow)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("eventloop: %s=%q: want a positive duration such as 100ms, or 0 for off", EnvDebugSlow, v)
	}
	return d, nil
}

// SlowCallback is a watchdog report: a callback, microtask, post or error
// handler that has run past the threshold (Done false: it is still
// running, and Stack shows where), or one of those, reported before, that
// has now returned or suspended (Done true: Elapsed is how long it ran).
type SlowCallback struct {
	ID   CallbackID   // 0 for a microtask, a post or the error handler
	Type CallbackType // 0 likewise
	// Kind names what runs: the callback's type ("defer", "delay", ...),
	// "microtask", "post", "error handler", or "resumed" and the kind of
	// what the fiber was running when it suspended (ID and Type are then
	// that callback's).
	Kind    string
	Fiber   uint64        // the fiber running it (Loop.FiberID)
	Elapsed time.Duration // how long it has run so far; with Done, in all
	// Created is where the callback was registered, one frame a line, with
	// WithTracing (or EVENTLOOP_DEBUG_TRACE=1); empty without, and for
	// microtasks and posts.
	Created string
	// Stack is the goroutine stack of the fiber running it, taken at the
	// report: where it is stuck, in runtime.Stack's shape without the
	// arguments. Empty in a Done report, and when the run ended before its
	// stack was taken (what the stack then showed was later code).
	Stack string
	// Hint is what a package built on the loop says of Stack (see
	// AddWatchdogHint): what blocks, and what to do. Empty in a Done
	// report, and when no hint recognises the stack.
	Hint string
	Done bool
}

// String describes the report in a few lines, as the default report
// function logs it.
func (s SlowCallback) String() string {
	var b strings.Builder
	b.WriteString("eventloop: slow ")
	b.WriteString(s.Kind)
	if s.ID != 0 {
		b.WriteString(" callback ")
		b.WriteString(s.ID.String())
	}
	if s.Done {
		fmt.Fprintf(&b, " returned after %v (fiber %d)", s.Elapsed, s.Fiber)
		return b.String()
	}
	fmt.Fprintf(&b, " still running after %v (fiber %d)", s.Elapsed, s.Fiber)
	if s.Hint != "" {
		b.WriteString(": ")
		b.WriteString(s.Hint)
	}
	if s.Created != "" {
		b.WriteString("; created at:")
		b.WriteString(s.Created)
	}
	if s.Stack != "" {
		b.WriteString("\n")
		b.WriteString(s.Stack)
	}
	return b.String()
}

// WithWatchdog reports every callback, microtask, post or error handler that
// runs longer than threshold, once while it still runs (with the stack of
// its fiber) and once when it returns (Done); see SlowCallback. report is
// called from the watchdog's own goroutine, one report at a time; nil logs
// with the standard library's logger. A report function that panics is
// recovered (the first panic is logged). It panics if threshold <= 0.
//
// The watchdog times every callback and microtask: a clock read and an
// atomic swap each, and one more of each where a batch of them ends (the
// fiber suspends, parks or ticks); README gives the figures. It also gives
// Metrics the slowest callback. Its goroutine starts with the first Run and ends with
// Close; it sleeps while no run is in progress.
//
// A report's stack comes from the runtime's goroutine profile, which stops
// the world twice, briefly, however many goroutines are alive, and is taken
// while the loop goes on: a run that returns meanwhile is not held up, and
// its report has no stack. The fibers carry their loop's profiler labels
// (see FiberContext) for the profile to find them; a fiber whose labels
// were replaced, by pprof.Do with another context, is found in a dump of
// all goroutines instead, which stops the world while it prints them.
func WithWatchdog(threshold time.Duration, report func(SlowCallback)) Option {
	if threshold <= 0 {
		panic(fmt.Sprintf("eventloop: WithWatchdog called with a threshold of %v; it must be positive", threshold))
	}
	return func(l *Loop) { l.wd = newWatchdog(threshold, report) }
}

// runKind is what a watched run is.
type runKind uint8

const (
	kindCallback runKind = iota // Type says which
	kindMicrotask
	kindPost
	kindHandler
	kindResume // a suspended fiber resumed: the fiber's own kind says what it runs
)

func kindName(k runKind, typ CallbackType) string {
	switch k {
	case kindMicrotask:
		return "microtask"
	case kindPost:
		return "post"
	case kindHandler:
		return "error handler"
	}
	return typ.String()
}

// runRecord describes a watched run; the loop writes it before it
// publishes the run in state, and the watchdog reads it only after claiming
// that run.
type runRecord struct {
	id      CallbackID
	typ     CallbackType
	kind    runKind
	resumed bool
	fiber   uint64
	gid     uint64 // the fiber's goroutine
	created []uintptr
}

type watchdog struct {
	threshold time.Duration
	period    time.Duration
	report    func(SlowCallback)
	epoch     time.Time
	loop      string // the label eventloop.loop of the loop's fibers

	state atomic.Uint64
	recs  [2]runRecord
	slot  uint64 // loop-owned: the record of the run in progress

	mu      sync.Mutex
	pending []SlowCallback // Done reports for the watchdog to make; guarded by mu
	wake    chan struct{}
	quit    chan struct{}
	exited  chan struct{}
	parked  atomic.Bool
	started bool // loop-owned
	stopped bool // loop-owned

	panicLogged bool // the watchdog goroutine's
}

func newWatchdog(threshold time.Duration, report func(SlowCallback)) *watchdog {
	if report == nil {
		report = func(s SlowCallback) { log.Print(s.String()) }
	}
	return &watchdog{
		threshold: threshold,
		period:    max(threshold/4, 100*time.Microsecond),
		report:    report,
		wake:      make(chan struct{}, 1),
	}
}

// wdBegin starts a watched run on fiber f, ending the one before it.
func (l *Loop) wdBegin(id CallbackID, typ CallbackType, kind runKind, f *fiber, created []uintptr) {
	w := l.wd
	now := l.now()
	w.slot ^= 1
	r := &w.recs[w.slot]
	r.id, r.typ, r.kind, r.resumed = id, typ, kind, false
	r.fiber, r.gid, r.created = f.id, f.gid, created
	if kind == kindResume {
		// The fiber goes on with what it ran when it suspended.
		r.id, r.typ, r.kind, r.resumed = f.runID, f.runTyp, f.runKind, true
	} else {
		f.runID, f.runTyp, f.runKind = id, typ, kind
	}
	old := w.state.Swap(uint64(now+1)<<2 | w.slot<<1)
	if old != 0 {
		l.wdEnded(old, now)
	}
}

// wdIdle ends the watched run in progress, if any.
func (l *Loop) wdIdle() {
	w := l.wd
	if w.state.Load() == 0 {
		return
	}
	now := l.now()
	if old := w.state.Swap(0); old != 0 {
		l.wdEnded(old, now)
	}
}

// wdEnded accounts for a run that has ended (old is what state held): the
// slowest run for Metrics, and a Done report if the watchdog reported it.
func (l *Loop) wdEnded(old uint64, now int64) {
	w := l.wd
	took := time.Duration(now - (int64(old>>2) - 1))
	r := &w.recs[old>>1&1]
	// A coarse clock (Windows') times a quick run at 0: the first run is the
	// slowest so far all the same.
	if took > l.m.slowest.Took || l.m.slowest.Kind == "" {
		l.m.slowest = SlowestCallback{ID: r.id, Type: r.typ, Kind: r.kindString(), Took: took}
	}
	if old&1 == 0 {
		return
	}
	w.mu.Lock() // the watchdog may still be reading r
	w.pending = append(w.pending, SlowCallback{
		ID: r.id, Type: r.typ, Kind: r.kindString(), Fiber: r.fiber, Elapsed: took, Done: true,
	})
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (r *runRecord) kindString() string {
	if r.resumed {
		return resumedNames[r.kind][r.typ&7]
	}
	return kindName(r.kind, r.typ)
}

// resumedNames are the kinds of resumed runs, made once so that a report
// costs no allocation on the loop.
var resumedNames = func() (n [kindResume][8]string) {
	for k := range n {
		for t := range n[k] {
			n[k][t] = "resumed " + kindName(runKind(k), CallbackType(t))
		}
	}
	return n
}()

// wdStart starts the watchdog goroutine with the first run, and wakes it
// for the next ones.
func (l *Loop) wdStart() {
	w := l.wd
	if w.stopped {
		return
	}
	if !w.started {
		w.started = true
		w.epoch = l.epoch
		l.FiberContext()
		w.loop = l.mark.loop
		w.quit = make(chan struct{})
		w.exited = make(chan struct{})
		go w.run(l)
		return
	}
	if w.parked.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// wdStop ends the watchdog goroutine, after it has made the reports left.
func (l *Loop) wdStop() {
	w := l.wd
	w.stopped = true
	if w.started {
		close(w.quit)
		<-w.exited
	}
}

// run is the watchdog goroutine. It polls every period while a run of the
// loop is in progress, and sleeps until the next run begins after two
// polls have found none.
func (w *watchdog) run(l *Loop) {
	defer close(w.exited)
	t := time.NewTicker(w.period)
	defer t.Stop()
	quiet := 0
	for {
		select {
		case <-w.quit:
			w.flush()
			return
		case <-w.wake:
		case <-t.C:
		}
		w.flush()
		w.check()
		if l.entered.Load() || w.state.Load() != 0 {
			quiet = 0
			continue
		}
		if quiet++; quiet < 2 {
			continue
		}
		// Park; a Run that begins meanwhile sees parked and wakes it, or
		// this sees the Run (the order of Post's wakeup).
		t.Stop()
		w.parked.Store(true)
		if !l.entered.Load() {
			select {
			case <-w.quit:
				w.parked.Store(false)
				w.flush()
				return
			case <-w.wake:
			}
		}
		w.parked.Store(false)
		quiet = 0
		t.Reset(w.period)
	}
}

// check reports the run in progress if it is past the threshold and not
// reported yet.
func (w *watchdog) check() {
	s := w.state.Load()
	if s == 0 || s&1 != 0 {
		return
	}
	start := int64(s>>2) - 1
	if time.Duration(w.now()-start) < w.threshold {
		return
	}
	w.mu.Lock()
	if !w.state.CompareAndSwap(s, s|1) {
		w.mu.Unlock() // it ended meanwhile
		return
	}
	r := w.recs[s>>1&1]
	w.mu.Unlock()
	// The stack is taken with no lock the loop needs held: the run may end
	// meanwhile, and the loop go on to the next one. A stack taken after
	// the run ended shows some later code, so it is left out.
	stack := fiberStack(w.loop, r.gid)
	if w.state.Load() != s|1 {
		stack = ""
	}
	elapsed := time.Duration(w.now() - start)
	w.call(SlowCallback{
		ID: r.id, Type: r.typ, Kind: r.kindString(), Fiber: r.fiber, Elapsed: elapsed,
		Created: formatFrames(r.created), Stack: stack, Hint: watchdogHint(stack),
	})
}

// The hints of AddWatchdogHint.
var hints struct {
	mu sync.Mutex
	fs []func(stack string) string
}

// AddWatchdogHint adds f to what the watchdog asks of a run past its
// threshold: f gets the stack of the fiber running it (as in
// SlowCallback.Stack) and returns what blocks there and what to do, or ""
// if it does not recognise it; the first hint that answers fills
// SlowCallback.Hint. Packages built on the loop add one in their init for
// their own frames (package httpserver names the handler that blocks).
// f is called from the watchdog's goroutine, only for a run being
// reported, and must not block. It is safe from any goroutine.
func AddWatchdogHint(f func(stack string) string) {
	if f == nil {
		panic("eventloop: AddWatchdogHint called with a nil func")
	}
	hints.mu.Lock()
	hints.fs = append(hints.fs, f)
	hints.mu.Unlock()
}

func watchdogHint(stack string) string {
	hints.mu.Lock()
	fs := hints.fs
	hints.mu.Unlock()
	for _, f := range fs {
		if h := f(stack); h != "" {
			return h
		}
	}
	return ""
}

func (w *watchdog) now() int64 { return int64(time.Since(w.epoch)) }

// flush makes the Done reports the loop left.
func (w *watchdog) flush() {
	w.mu.Lock()
	ps := w.pending
	w.pending = nil
	w.mu.Unlock()
	for _, p := range ps {
		w.call(p)
	}
}

// call hands s to the report function; a panic there is recovered, and the
// first one logged.
func (w *watchdog) call(s SlowCallback) {
	defer func() {
		if r := recover(); r != nil && !w.panicLogged {
			w.panicLogged = true
			log.Printf("eventloop: the watchdog's report function panicked (recovered; later panics are not logged): %v", r)
		}
	}()
	w.report(s)
}

func formatFrames(pcs []uintptr) string {
	if len(pcs) == 0 {
		return ""
	}
	var b strings.Builder
	writeFrames(&b, pcs)
	return b.String()
}
