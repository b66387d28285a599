// Package fiber lets the fibers of a loop work together, in the shapes Go
// users know, the way amphp's amp, sync and pipeline packages serve
// Revolt: a future of a fiber's result (Go, Future, All, Any, First), a
// group in errgroup's shape (Group), a bounded queue (Queue), and a mutex
// and a semaphore that may be held across suspensions (Mutex, Semaphore).
//
// # Fibers and goroutines
//
// Every primitive belongs to one loop (core.Loop), and its state lives on
// that loop: only the loop's fibers touch it, so the fiber's path takes no
// lock. Every method may still be called from any goroutine, unless its
// doc says it is for the loop's fibers only:
//
//   - from a fiber of the loop (a callback, a microtask, a function
//     started by Go), a call that has to wait suspends that fiber
//     (core.Suspension) and the loop runs on;
//   - from any other goroutine (main before or instead of Run, a
//     goroutine of its own, a fiber of another loop) the call is made for
//     it in a fiber of the loop (Loop.Post) and the goroutine blocks until
//     it is done. If nobody runs the loop meanwhile, the call runs it
//     (Loop.RunUntil), as package socket's calls do; while it waits, it
//     keeps the loop's Run going (a goroutine may be about to send).
//
// Which one the caller is, Loop.InFiber tells.
//
// # Waiting
//
// Calls that wait take a context: its end ends the wait with ctx.Err(),
// and the call then has had no effect (a Send's value is not queued, a
// Lock does not hold the lock). A wait whose context can end keeps the
// loop's Run going while it lasts, as a timer would: the context's end
// must find the loop running. A wait with context.Background() holds
// nothing, as a bare Suspension holds nothing: a Run with nothing else to
// do returns and leaves such fibers suspended.
//
// Waiters are served first come, first served (FIFO) by Queue, Mutex and
// Semaphore: a Mutex's Unlock and a Semaphore's Release hand what they
// free to the longest waiter, so no later fiber takes it first, and a
// Semaphore's waiter that wants more than is free holds back the ones
// behind it. A Future wakes all its waiters at once.
//
// # Close
//
// Loop.Close unwinds every fiber suspended in these primitives and ends
// every goroutine's wait: the call returns an error that wraps
// core.ErrLoopClosed and names it ("fiber: Queue.Recv: eventloop: the event
// loop is closed"); no goroutine is left. A call made after Close returns
// such an error too, except Future.Await of a future that is done, which
// returns its result.
//
// # Misuse
//
// Programmer errors panic with a message that names the problem, in the
// caller's goroutine (a goroutine's call made in a fiber raises the panic
// again in the goroutine): Unlock of an unlocked Mutex, a Release of more
// units than are held, a negative capacity or a size below 1, a nil func,
// First or Any with no futures or with futures of different loops. A Send
// on a closed Queue returns an error that says so (wrapping ErrClosed),
// as amphp's Queue throws, where a Go channel panics: a producer that
// races the consumer's Close is not a bug.
//
// # Cost
//
// Once warm, a Queue's Send and Recv (a suspension or not), a Mutex's Lock
// and Unlock and a Semaphore's Acquire and Release allocate nothing from a
// fiber with a context that cannot end: a waiter's node is pooled, and it
// is resumed with no value boxed (allocs_test.go). A context that can end
// costs a context.AfterFunc and a timer of the loop per wait that
// suspends. Go from a fiber allocates its future and nothing else (it is
// queued as a core.Runner, with no closure), and an Await from a fiber
// allocates nothing when it is the future's only wait and its context
// cannot end; a future's first other wait makes its wait list. Such an
// Await costs the suspension cycle it is made of and about 12 ns more,
// 1.1x a cycle (BenchmarkFutureAwait against BenchmarkGoResume); an
// unbuffered Queue's Send and Recv between two fibers cost 1.4x a cycle
// (BenchmarkQueuePingPong, two of each). A call from a goroutine costs a
// post, a channel and a context.
package fiber
