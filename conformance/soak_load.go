package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The soak's workload: everything a program embedding the loop does to it at
// once, each part checking its own results as it goes, and every part
// winding down on its own once stopping is set, so that Run returning at
// all proves nothing was left registered, suspended or in flight.
//
// Apart from the posters' own fields (see soakPoster), the state is touched
// only on the loop.

// Sizes of the workload: a few of each, enough that every kind of callback
// is in flight at every tick without turning the soak into a load test.
const (
	soakEchoPairs   = 4  // socketpairs with a request/response fiber each
	soakBulkPairs   = 2  // socketpairs streaming both ways at once
	soakSleepers    = 16 // fibers that suspend and are resumed by others
	soakAwaiters    = 4  // fibers in a loop of core.Await
	soakPosters     = 4  // goroutines calling Post
	soakPostWindow  = 32 // posts a poster may have in flight
	soakChunkMax    = 4096
	soakPatternSpan = 251 // prime, so chunk boundaries drift across the pattern
)

var soakErrAgain = errors.New("conformance: soak fd not ready")

// soakThrown is what a sleeper is thrown instead of resumed with.
type soakThrown struct{ tok uint64 }

func (e *soakThrown) Error() string { return fmt.Sprintf("soak: thrown %d", e.tok) }

var soakAwaitErr = errors.New("soak: await failed as asked")

// soakCounts are the progress counters, checked against each other at the
// end and reported.
type soakCounts struct {
	delaysArmed, delaysFired, delaysCancelled  uint64
	repeatsStarted, repeatsDone, repeatsCut    uint64
	repeatRuns, disables, enables              uint64
	echoRounds, bulkBytes                      uint64
	suspends, resumes, throws                  uint64
	awaits, awaitErrs, postsSent, postsRan     uint64
	watchersAdded, watchersCancelled, failures uint64
}

type soakTimer struct {
	d        time.Duration
	deadline time.Time // a lower bound of the loop's own: taken before the call
	disabled bool
}

type soakEcho struct {
	a, b       int
	persistent bool            // one watcher enabled and disabled, or one per wait
	watchA     core.CallbackID // the persistent watcher
	s          *core.Suspension
	watchB     core.CallbackID // the echoing side
	rounds     uint64
}

// soakStream is one direction of a bulk pair.
type soakStream struct {
	from, to   int
	salt       int
	sent, recv uint64
	w, r       core.CallbackID
	wDone      bool
}

// soakPoster is one goroutine calling Post: sent belongs to that goroutine
// until the WaitGroup says it ended; ran belongs to the loop.
type soakPoster struct {
	sem  chan struct{}
	sent uint64
	ran  uint64
	err  error
}

type soakWaiter struct {
	s   *core.Suspension
	tok uint64
}

type soakLoad struct {
	t        *testing.T
	l        *core.Loop
	rng      *rand.Rand
	pattern  []byte
	stopping bool
	c        soakCounts

	timers   map[core.CallbackID]*soakTimer
	timerIDs []core.CallbackID // timers' keys, for a random pick
	disabled []core.CallbackID
	repeats  map[core.CallbackID]bool
	churn    core.CallbackID

	echo    []*soakEcho
	streams []*soakStream
	pacer   core.CallbackID
	fds     []int

	waiting      []soakWaiter
	waker        core.CallbackID
	nextTok      uint64
	fibersLive   int // sleepers, echo and await fibers not yet returned
	sleepersLive int

	posters   []*soakPoster
	postStop  chan struct{}
	postersWG sync.WaitGroup

	sampler core.CallbackID
	samples []soakSample // taken on the loop while the workload runs

	holds   int    // times stop was held back for a part without progress
	heldFor string // the last such part
}

// soakRecheck is how long a stop held back by a part without progress
// waits before it looks again.
const soakRecheck = 10 * time.Millisecond

func newSoakLoad(t *testing.T, l *core.Loop, seed uint64) *soakLoad {
	w := &soakLoad{
		t:        t,
		l:        l,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		timers:   make(map[core.CallbackID]*soakTimer),
		repeats:  make(map[core.CallbackID]bool),
		postStop: make(chan struct{}),
	}
	w.pattern = make([]byte, soakPatternSpan+soakChunkMax)
	for i := range w.pattern {
		w.pattern[i] = byte(i % soakPatternSpan)
	}
	return w
}

// fail reports a broken invariant; only the first few are printed, since
// one bug in a soak repeats thousands of times.
func (w *soakLoad) fail(format string, args ...any) {
	w.c.failures++
	if w.c.failures <= 10 {
		w.t.Errorf("soak: "+format, args...)
	}
}

// open makes the socketpairs; the caller closes w.fds after Run, once
// nothing watches them.
func (w *soakLoad) open() error {
	pair := func() (int, int, error) {
		a, b, err := soakSocketpair()
		if err == nil {
			w.fds = append(w.fds, a, b)
		}
		return a, b, err
	}
	for i := range soakEchoPairs {
		a, b, err := pair()
		if err != nil {
			return err
		}
		w.echo = append(w.echo, &soakEcho{a: a, b: b, persistent: i%2 == 1})
	}
	for i := range soakBulkPairs {
		a, b, err := pair()
		if err != nil {
			return err
		}
		w.streams = append(w.streams,
			&soakStream{from: a, to: b, salt: 2 * i},
			&soakStream{from: b, to: a, salt: 2*i + 1})
	}
	return nil
}

// start registers the workload and the callback that stops it after d.
func (w *soakLoad) start(d, sampleEvery time.Duration) {
	l := w.l
	w.churn = l.Repeat(time.Millisecond, w.churnTimers)
	for _, e := range w.echo {
		w.startEcho(e)
	}
	for _, st := range w.streams {
		w.startStream(st)
	}
	w.pacer = l.Repeat(time.Millisecond, w.pace)
	w.waker = l.Repeat(time.Millisecond, w.wake)
	for range soakSleepers {
		w.goFiber(w.sleeper)
		w.sleepersLive++
	}
	for range soakAwaiters {
		w.goFiber(w.awaiter)
	}
	w.startPosters()
	w.sampler = l.Repeat(sampleEvery, func(core.CallbackID) {
		w.samples = append(w.samples, soakTake(l))
	})
	l.Delay(d, w.stop)
}

// goFiber runs fn in a callback fiber of its own and keeps count of it.
func (w *soakLoad) goFiber(fn func()) {
	w.fibersLive++
	w.l.Defer(func(core.CallbackID) {
		defer func() { w.fibersLive-- }()
		fn()
	})
}

// stop sets stopping and cancels what would otherwise run for ever; the
// fibers, the readers of the bulk streams and the waker end on their own.
// A part that has made no progress yet holds the stop back (soakRecheck at
// a time, within the watchdog's soakGrace): the workload is random and a
// slow platform runs few ticks in d (under Wine on a loaded machine, a
// tick can take hundreds of milliseconds), so "every part ran" is a
// condition to wait for, not a bet on the duration.
func (w *soakLoad) stop(core.CallbackID) {
	l := w.l
	if part := w.lagging(); part != "" {
		w.heldFor = part
		w.holds++
		l.Delay(soakRecheck, w.stop)
		return
	}
	w.stopping = true
	w.samples = append(w.samples, soakTake(l))
	l.Cancel(w.sampler)
	l.Cancel(w.churn)
	l.Cancel(w.pacer)
	for _, id := range w.timerIDs {
		l.Cancel(id)
		w.c.delaysCancelled++
	}
	clear(w.timers)
	w.timerIDs = w.timerIDs[:0]
	w.disabled = w.disabled[:0]
	for id := range w.repeats {
		l.Cancel(id)
		w.c.repeatsCut++
	}
	clear(w.repeats)
	for _, st := range w.streams {
		l.Cancel(st.w)
		st.wDone = true
		w.c.watchersCancelled++
		w.finishStream(st)
	}
	close(w.postStop)
	// The posters may still be posting: an Await keeps the loop alive until
	// they have ended, after which what they posted keeps it alive until
	// it has run.
	w.goFiber(func() {
		_, err := core.Await(l, func(context.Context) (struct{}, error) {
			w.postersWG.Wait()
			return struct{}{}, nil
		})
		if err != nil {
			w.fail("await of the posters: %v", err)
		}
	})
}

// check balances the counters once Run has returned.
func (w *soakLoad) check(st core.Stats) {
	c := &w.c
	want := func(ok bool, format string, args ...any) {
		if !ok {
			w.fail(format, args...)
		}
	}
	want(w.stopping, "Run returned before the workload was stopped")
	want(w.fibersLive == 0 && st.FibersLive == 0, "fibers still live: %d of the workload's, %d by Stats", w.fibersLive, st.FibersLive)
	want(len(w.l.Identifiers()) == 0, "callbacks still registered: %v", w.l.Identifiers())
	want(c.delaysArmed == c.delaysFired+c.delaysCancelled, "delays: %d armed, %d ran, %d cancelled", c.delaysArmed, c.delaysFired, c.delaysCancelled)
	want(c.repeatsStarted == c.repeatsDone+c.repeatsCut, "repeats: %d started, %d done, %d cut short", c.repeatsStarted, c.repeatsDone, c.repeatsCut)
	want(c.suspends == c.resumes+c.throws, "sleepers: %d suspends, %d resumes, %d throws", c.suspends, c.resumes, c.throws)
	want(c.watchersAdded == c.watchersCancelled, "watchers: %d added, %d cancelled", c.watchersAdded, c.watchersCancelled)
	if part := w.lagging(); part != "" {
		w.fail("no progress: %s", part)
	}
	for i, s := range w.streams {
		want(s.recv == s.sent, "bulk stream %d: %d bytes written, %d read", i, s.sent, s.recv)
	}
	for i, p := range w.posters {
		want(p.err == nil, "poster %d: Post: %v", i, p.err)
		want(p.ran == p.sent, "poster %d: %d posted, %d ran", i, p.sent, p.ran)
		c.postsSent += p.sent
	}
}

// lagging names the first part of the workload that has made no progress
// yet, or returns "" once every part has: delays ran, were cancelled and
// disabled, a repeat ran, sleepers were resumed and thrown into, awaits
// returned and failed as asked, every echo pair made a round trip, every
// bulk stream carried bytes, and something of every poster ran.
func (w *soakLoad) lagging() string {
	c := &w.c
	switch {
	case c.delaysFired == 0 || c.delaysCancelled == 0 || c.disables == 0:
		return fmt.Sprintf("delays: %d ran, %d cancelled, %d disabled", c.delaysFired, c.delaysCancelled, c.disables)
	case c.repeatRuns == 0:
		return "no repeat ran"
	case c.resumes == 0 || c.throws == 0:
		return fmt.Sprintf("sleepers: %d resumed, %d thrown into", c.resumes, c.throws)
	case c.awaits == 0 || c.awaitErrs == 0:
		return fmt.Sprintf("awaits: %d returned, %d failed as asked", c.awaits, c.awaitErrs)
	}
	for i, e := range w.echo {
		if e.rounds == 0 {
			return fmt.Sprintf("echo pair %d made no round trip", i)
		}
	}
	for i, s := range w.streams {
		if s.recv == 0 {
			return fmt.Sprintf("bulk stream %d carried nothing", i)
		}
	}
	for i, p := range w.posters {
		if p.ran == 0 {
			return fmt.Sprintf("nothing of poster %d ran", i)
		}
	}
	return ""
}

// state says what is still in flight, for a soak that does not wind down.
func (w *soakLoad) state() string {
	return fmt.Sprintf("stopping=%v (held back %d times, last for %q) fibers=%d sleepers=%d waiting=%d timers=%d repeats=%d callbacks=%v counts: %s",
		w.stopping, w.holds, w.heldFor, w.fibersLive, w.sleepersLive, len(w.waiting), len(w.timers), len(w.repeats), w.l.Identifiers(), w.c)
}

func (c soakCounts) String() string {
	return fmt.Sprintf("delays %d armed/%d ran/%d cancelled, %d disable+%d enable, repeats %d (%d runs); "+
		"echo %d round trips, bulk %s; fibers %d suspends/%d resumes/%d throws; "+
		"awaits %d (%d failed as asked); posts %d sent/%d ran; watchers %d added/%d cancelled",
		c.delaysArmed, c.delaysFired, c.delaysCancelled, c.disables, c.enables, c.repeatsStarted, c.repeatRuns,
		c.echoRounds, soakMiB(c.bulkBytes), c.suspends, c.resumes, c.throws,
		c.awaits, c.awaitErrs, c.postsSent, c.postsRan, c.watchersAdded, c.watchersCancelled)
}
