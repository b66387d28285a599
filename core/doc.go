// Package core is the scheduler of revoltgo/eventloop: a single-threaded
// event loop with fibers, with the semantics of the PHP event loop Revolt,
// written once over a narrow driver seam (package driver, aliased in
// driver.go) that reports fd readiness and can be woken. The fd lifecycle
// is the core's: which file a watcher belongs to (fds.go), finding fds
// closed behind the loop's back (sweep.go), closing owned fds (closefd.go),
// and the wait that I/O layers build on (FD, fdwait.go).
//
// # What it guarantees
//
//   - Callbacks registered or enabled in a tick become active at the start
//     of the next tick, never in the tick they were enabled. Defers run in
//     order of enabling; timers due at the same instant run in the order
//     they were armed; a repeat timer is re-armed (now + interval) before its
//     callback runs, so it never runs twice in one tick. Deadlines count from
//     the Delay, Repeat or Enable call on a monotonic clock; no timer fires
//     early.
//   - All microtasks (Queue, QueueRunner, and every Resume) run after
//     every callback and before the first one.
//   - Run returns when no enabled referenced callback, post or Await is
//     left, or after Stop.
//   - A panic in a callback, microtask or post becomes an *UncaughtError:
//     the error handler gets it in a fiber of its own (it may suspend);
//     without one Run (or a main Suspend) returns it and the loop stays
//     usable. A panic in the handler comes out of Run.
//   - Every callback runs in a fiber and may suspend (Suspension). Exactly
//     one fiber drains the queues: a resumed fiber returns to its resumer
//     when its callback ends (the non-nesting drain rule, drain.go), so
//     however many fibers are resumed in a tick, the resume chain stays three
//     deep and no fiber is left parked.
//   - Close unwinds every suspended fiber (Suspend returns ErrLoopClosed and
//     deferred calls run), runs what was posted, cancels and waits for
//     Await calls, stops the signal goroutines and closes the driver: no
//     goroutine of the loop outlives it.
//   - fd callbacks are level-triggered. An fd closed while watched, or one
//     the driver refuses, never hangs or spins the loop: its watchers are
//     disabled and an *UncaughtError wrapping an *FDError that names the fd
//     and the callback ids reaches the handler or Run.
//   - A watcher belongs to the open file it was registered on, not to its
//     number: when a watched fd is closed behind the loop and the number
//     taken by a new file, only the old file's watchers are reported, and
//     a watcher of the new file works from its first tick. Close owned fds
//     with Loop.CloseFD, which never leaves anything to report.
//
// # Waiting for a file descriptor: FD
//
// FD is the wait that package socket (and a layer written outside this
// module: a serial port, a TUN device) builds its calls on. It holds one
// atomic word that any goroutine may touch (fdmutex.go: references, the
// closing bit, each direction's lock and the calls waiting for it), and
// per direction, on the loop only, one waiter, the direction's interest
// and its deadline (fdwait.go, fddeadline.go). It guarantees:
//
//   - Calls take a reference (Acquire, or Lock with a direction's lock;
//     calls in one direction take turns) and give it back. Close wakes
//     every waiter (their calls return the error given to Init), waits
//     until the last user has left, deregisters the fd and closes it, and
//     only then returns: nobody reads a file that took the number.
//   - The fd is registered at its first wait and stays registered for its
//     life. Readiness that nobody waits for takes the direction's interest
//     away (drivers are level-triggered); the next wait puts it back, and
//     the driver reports what is still pending then. Interest changes are
//     made before the tick's driver Wait, never on a waiting fiber's stack.
//   - A fiber's Wait is resumed straight from the driver's event, in that
//     tick, and allocates nothing. A goroutine's wait is posted to the
//     loop as a watch that closes a channel, and it waits in RunUntil: it
//     runs the loop itself when nobody else does.
//   - A deadline (SetDeadline) is a timer node of its direction in the
//     loop's heap, and ends a wait with os.ErrDeadlineExceeded.
//   - An FD holds nothing beyond itself (152 bytes on 64-bit systems)
//     until it needs a deadline's timer, a queue for a contended lock or
//     a place for a Close that waits for a user: those share one record,
//     made at the first of them, so a connection without a deadline holds
//     none while it waits.
//   - A wait keeps Run going until it ends; an FDWatch, a func run when a
//     direction may be ready (a connection that idles without a fiber),
//     does if it says so.
//
// # Threading
//
// A loop belongs to one goroutine at a time. Post, Stop, Metrics, Done,
// IsClosed, InFiber and RunUntil are safe from any goroutine (Stop, like
// Post, wakes a loop blocked in its driver; RunUntil runs the loop only
// when no other goroutine does).
// Fibers are coroutines on the runtime's coroutine switch (iter.Pull): a
// switch costs about as much as a function call into another stack, and
// exactly one fiber runs at a time. The runtime forbids switching to a
// coroutine from another thread-lock state than it was made in, and loops
// are run from goroutines locked to their OS thread (GUI and cgo main
// threads) as well as unlocked ones, one after the other; so main never
// switches to a fiber itself: Run, a main Suspend and Close hand their work
// to the loop's proxy goroutine (run.go), which is never locked, for about
// 1 µs a round trip. Close ends it. Code running in a fiber must not stay
// locked to its thread across a Suspend.
//
// # Misuse
//
// Programmer errors panic with a message that names the problem: a negative
// duration or fd, a nil func, Resume or Throw on a suspension that is not
// suspended, Suspend twice or from another fiber, a registration after
// Close. Inside a callback such a panic is routed like any other. Unknown
// ids: Enable, Reference, Type, IsEnabled and IsReferenced return an
// *InvalidCallbackError; Disable, Cancel and Unreference ignore them.
// After Close, Run, Post, OnSignal, Enable and Reference return
// ErrLoopClosed; Close from inside the loop returns an error wrapping
// ErrLoopRunning; Run on a second goroutine returns ErrLoopRunning. A
// callback that calls runtime.Goexit (t.FailNow does) ends its fiber and
// the fibers that had resumed it; Run returns an *UncaughtError wrapping
// ErrGoexit and the loop goes on without them.
//
// # Go additions to Revolt's API
//
// Await runs a blocking Go function on a goroutine while the fiber (or main)
// waits; Suspension.SuspendContext ends a suspension with its context;
// FiberLocal keeps a value per fiber; RunOnce runs a single tick for
// embedding in another loop; WithTracing (or EVENTLOOP_DEBUG_TRACE=1)
// records where callbacks were created, for the deadlock error and Dump,
// which also shows where every suspended fiber waits; Stats counts ticks,
// callbacks, microtasks and fibers; RunContext runs until a context is
// done.
//
// # Seeing inside a running loop
//
// Without any setting, a fiber that keeps the loop's goroutine blocked in
// the runtime or a syscall for 5 ms (net/http's client, time.Sleep, a
// channel, a lock, a blocking read) is reported once per call site, with
// the standard library's logger: the call, the code that made it, the
// handler if package httpserver runs it, and the fix (package httpclient,
// httpserver.Blocking, Await). A fiber computing that long is not: that is
// the watchdog's. A sampler goroutine per running loop, asleep while the
// loop waits in the driver, finds the fiber's stack in the goroutine
// profile (blocked.go); the loop pays an atomic load and a branch per
// callback and per suspension. WithBlockedReport takes the reports, or
// turns them off (nil), as EVENTLOOP_BLOCKED=0 does.
//
// WithWatchdog (or EVENTLOOP_DEBUG_SLOW=100ms) reports a callback,
// microtask, post or error handler that runs past a threshold while it
// still runs, from a goroutine of its own, with the stack of the fiber
// that runs it, and again when it returns (watchdog.go). Off, it costs a
// predictable branch per microtask batch, per callback and per tick; on, a
// clock read and an atomic swap per run, and per batch of runs. Metrics (metrics.go), readable
// from any goroutine, tell time idle in the driver and busy, a histogram of
// how late timers ran, ticks, fd events, callbacks by type, microtasks,
// posts and suspended fibers: the loop counts in plain fields and
// publishes a copy under a mutex before each blocking wait, every 1024
// ticks, when a run ends and at Close. A timer's lateness is measured
// against the loop's latest clock reading when the tick found it due,
// which costs nothing more (that reading may be the Delay call's own, in
// the callback before the tick: what that callback did after it is not
// counted), and the clock is read again for a timer that callbacks before
// it in the same tick made late (Repeat reuses the reading that re-arms
// it); the slowest callback is timed only with the watchdog on.
package core
