package core

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/internal/drainrule"
)

// cacheLine is twice a cache line: the CPUs this runs on fetch lines in
// adjacent pairs.
const cacheLine = 128

// Loop is a single-threaded event loop. Its methods must be called from the
// goroutine that runs the loop (or, before Run, from the one that will): a
// callback, a microtask, a fiber, or main between runs; except Post, Stop,
// Metrics, Done, IsClosed, InFiber and RunUntil, which are safe from any
// goroutine (the package doc's Threading).
type Loop struct {
	driver Driver

	callbackTable // every registered callback, by id
	queues        // what runs this tick and what is enabled for the next
	timerState    // the timers and the loop's time
	ioState       // fds: watchers and the loop's own waits (FD)
	signals       signalTable
	shared        // what other goroutines write: posts, Close's flag
	fiberState    // the fibers and who drains (the drain rule)
	mainState     // main, the goroutine that calls Run, and its Suspend
	runState      // the run in progress, errors, Close
	awaitState    // Await calls in flight (await.go)
	diagnostics   // watchdog, metrics, counters, tracing (observe.go)
	runnerQueue   // QueueRunner's Runners (runner.go)
}

// callbackTable: callbacks live in a table indexed by the low bits of
// their id.
type callbackTable struct {
	pages   []*page
	nslots  uint32 // slots ever used; the free ones are listed in free
	free    []uint32
	nextSeq uint64 // sequence part of the next id
	live    int    // enabled and referenced callbacks: Run goes on while > 0
}

type queues struct {
	enableQueue      []queued // timers, fds and signals to activate next tick
	enableDeferQueue []queued // defers to run next tick, in order of enabling
	callbackQueue    ring[entry]
	microtasks       ring[task]
}

type timerState struct {
	timers   timerHeap
	timerSeq uint64
	epoch    time.Time // monotonic base of every deadline
	lastNow  int64     // the clock when last read: a timer due by then is due now
	// clockStale: user code ran since the tick last read the clock, so
	// lastNow is not the time a timer callback starts (observe.go).
	clockStale bool
}

type ioState struct {
	fds       []fdState // indexed by fd
	watching  int       // fds registered with the driver
	ioWaiters int       // waits on FDs in progress (fdwait.go): they keep Run going
	ioDirty   []*FD     // FDs whose interest changed since the last Wait
	sweep     sweeper   // finds fds closed behind the loop's back (sweep.go)
	// noFileIDs: the fds are not files (core's tests); never fstat them.
	noFileIDs bool
	events    []Event
}

// shared is the state that other goroutines write on every Post, on cache
// lines of its own: the loop's writes to its other fields would otherwise
// take the line from a goroutine that posts, on every callback. (Stop's
// flag, written once, is read by every tick and stays in runState.)
type shared struct {
	_           [cacheLine]byte
	postMu      sync.Mutex
	posts       []func()
	postWaiting atomic.Bool // posts is not empty: keeps Run going, stops a Wait
	sleeping    atomic.Bool // the loop is in (or about to enter) a blocking Wait
	postShut    bool        // guarded by postMu: Close has begun
	closedFlag  atomic.Bool // Close has begun: IsClosed, from any goroutine
	doneOnce    sync.Once
	done        chan struct{} // closed when Close begins: Done
	_           [cacheLine]byte
	postSpare   []func()
	postQueued  int // posts moved to the callback queue and not yet run
}

type fiberState struct {
	cur        *fiber // running fiber; nil is main
	loopFiber  *fiber // runs ticks; nil when no run is in progress
	cbFiber    *fiber // the one fiber that drains the queues (section 4 of the design)
	nesting    bool   // the drain rule switched off: tests and the bench only (drainrule.Off)
	pool       []*fiber
	poolMax    int
	fibers     fiberList // every fiber goroutine, pooled or not
	nextFiber  uint64
	fibersLive int       // fibers with a task in progress (not parked in the pool)
	mark       fiberMark // how a fiber of this loop knows itself (infiber.go)
}

type mainState struct {
	mainSusp     *Suspension
	mainWait     *Suspension // the main Suspend in progress
	mainIntr     interrupt   // what the loop fiber handed main
	mainDeadlock error
	mainLocals   map[any]any
	proxy        *proxy // the goroutine that switches to fibers for main (run.go)
}

// runMode is what ends a run: the loop running empty (Run), or one tick
// (RunOnce), which may not block (RunOnce(false)).
type runMode uint8

const (
	runUntilEmpty runMode = iota
	runOneTick
	runOneTickNoWait
)

type runState struct {
	mode        runMode
	entered     atomic.Bool  // a Run, Suspend from main or Close is in progress
	stopped     atomic.Bool  // Stop: set from any goroutine, read by the tick
	untilRun    atomic.Int32 // RunUntil calls claiming or holding the loop: a run of theirs may be in progress
	runEnds     runEnds      // wakes goroutines waiting in RunUntil (rununtil.go)
	runGen      uint64       // runs so far: a RunUntil's stop is for its own run only
	intr        interrupt
	idle        bool // the tick ran nothing: the next one may block
	retiring    bool // the loop fiber asks the idle callback fiber to go to the pool
	closing     bool
	closed      bool
	closeErrs   []error
	pendingErrs []error
	errHandler  func(error)
}

type diagnostics struct {
	wd  *watchdog     // WithWatchdog (watchdog.go); nil: off
	blk *blockedWatch // the blocked-call report (blocked.go); nil: off
	// obs says what the watchdog and the blocked-call sampler need
	// (blocked.go): read by the loop at every run, written by the sampler
	// once per sampling period at most. A plain word for sync/atomic's
	// functions: the method of an atomic.Uint32 would cost userRunBegins
	// its inlining.
	obs    uint32
	counts counters     // what Stats and Metrics both report (metrics.go)
	m      metricsState // the rest of Metrics (metrics.go)
	trace  bool         // WithTracing: record where callbacks and fibers were made
	dump   string       // what opDump found
}

// interrupt is what the loop fiber hands back to main: the value or error a
// main suspension was resumed with, or an uncaught error.
type interrupt struct {
	set      bool
	val      any
	err      error
	uncaught error
}

// Option configures a Loop.
type Option func(*Loop)

// WithFiberPool sets how many finished fibers are kept for reuse (default
// 256). Creating a fiber costs a goroutine and a few allocations; reusing one
// costs nothing. 0 disables the pool.
func WithFiberPool(n int) Option {
	return func(l *Loop) {
		if n < 0 {
			n = 0
		}
		l.poolMax = n
	}
}

// WithTracing records where each callback was created, so that the deadlock
// error and Dump can say where the callbacks left, and the callbacks the
// suspended fibers run, came from (Revolt's TracingDriver). The environment
// variable EVENTLOOP_DEBUG_TRACE=1 turns it on for every loop. It costs a
// runtime.Callers per registration; without it the loop pays one branch.
func WithTracing() Option { return func(l *Loop) { l.trace = true } }

// EnvDebugTrace is the environment variable that turns WithTracing on.
const EnvDebugTrace = "EVENTLOOP_DEBUG_TRACE"

// New returns a loop on driver d. The loop owns d: Close closes it.
// EVENTLOOP_DEBUG_TRACE=1 turns tracing on and EVENTLOOP_DEBUG_SLOW the
// watchdog, as the options would, and EVENTLOOP_BLOCKED=0 the blocked-call
// report off (WithBlockedReport); New ignores an EVENTLOOP_DEBUG_SLOW or
// EVENTLOOP_BLOCKED it cannot parse (eventloop.New returns an error for it
// instead).
func New(d Driver, opts ...Option) *Loop {
	if d == nil {
		panic("eventloop: New called with a nil Driver")
	}
	nesting := false
	if o, ok := d.(interface {
		WithoutDrainRule(drainrule.Key) Driver
	}); ok {
		d, nesting = o.WithoutDrainRule(drainrule.Key{}), true
	}
	l := &Loop{driver: d}
	l.nesting = nesting
	l.poolMax = 256
	l.epoch = time.Now()
	l.events = make([]Event, 256)
	l.trace = os.Getenv(EnvDebugTrace) == "1"
	// A value New cannot use is ignored here (New cannot fail);
	// eventloop.New reports it.
	if slow, err := DebugSlowFromEnv(); err == nil && slow > 0 {
		l.wd = newWatchdog(slow, nil)
	}
	if on, _ := BlockedFromEnv(); on {
		l.blk = newBlockedWatch(logBlocked)
	}
	for _, o := range opts {
		o(l)
	}
	if l.wd != nil {
		atomic.StoreUint32(&l.obs, obsWatchdog)
	}
	return l
}

// Driver returns the loop's driver.
func (l *Loop) Driver() Driver { return l.driver }

// now is the monotonic time since the loop was made, in nanoseconds.
func (l *Loop) now() int64 {
	l.lastNow = int64(time.Since(l.epoch))
	return l.lastNow
}

// Stop makes Run return at the end of the current tick. Like Post, it is
// safe from any goroutine: a loop blocked waiting for events is woken. A
// Stop while no run is in progress has no effect on the next one (from
// another goroutine, Post(l.Stop) stops the run that takes the post:
// RunContext does that), and after Close it does nothing.
func (l *Loop) Stop() {
	l.stopped.Store(true)
	// As Post: a loop about to block sets sleeping and then checks stopped
	// (dispatch), so one of the two sees the other.
	if l.sleeping.Load() && !l.closedFlag.Load() {
		_ = l.driver.Wakeup() // fails only once the driver is closed
	}
}

// IsRunning reports whether a run is in progress: the loop fiber is running
// or is suspended because main was resumed (or an uncaught error came out of
// Run) in the middle of a tick.
func (l *Loop) IsRunning() bool { return l.loopFiber != nil }

// SetErrorHandler sets the function that receives every *UncaughtError; nil
// removes it, and uncaught errors then come out of Run.
func (l *Loop) SetErrorHandler(h func(err error)) { l.errHandler = h }

// ErrorHandler returns the error handler, or nil.
func (l *Loop) ErrorHandler() func(err error) { return l.errHandler }

// FiberID identifies the running fiber: 0 is main; every fiber gets a new
// number, a reused goroutine included.
func (l *Loop) FiberID() uint64 {
	if l.cur == nil {
		return 0
	}
	return l.cur.id
}

// ResumeDepth is the number of fibers on the current resume chain: main 0,
// the loop fiber 1, the callback fiber 2, a fiber resumed from a callback 3.
// With the drain rule it never exceeds a small constant.
func (l *Loop) ResumeDepth() int {
	if l.cur == nil {
		return 0
	}
	return int(l.cur.depth)
}
