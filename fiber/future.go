package fiber

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/revoltgo/eventloop/core"
)

// ErrPanicked is the error of a Future (or a Group's Wait) whose function
// panicked or called runtime.Goexit. The panic itself is not taken: the
// loop reports it as it reports any callback's (the error handler, or
// Run), so that it is never lost when nobody awaits the future.
var ErrPanicked = errors.New("fiber: the fiber's function panicked or called runtime.Goexit (the loop reported it to its error handler or Run)")

// Future is the result of a function running in a fiber of a loop (Go).
//
// Await may be called from any goroutine: from a fiber of the future's
// loop it suspends that fiber, from any other goroutine it blocks it (and
// runs the loop if nobody does). A future belongs to its loop: a fiber of
// another loop that awaits it blocks its own loop meanwhile.
type Future[T any] struct {
	l       *core.Loop
	fn      func() (T, error) // until its fiber takes it
	done    bool
	settled atomic.Bool // done, for other goroutines: set after v and err
	v       T
	err     error
	// sole is the fiber that waits alone, with a context that cannot
	// end: the common await, which then needs no node (Await).
	sole *core.Suspension
	// waiters are the other waits, on a list made for the first of them:
	// most futures never need one, and their allocation stays small.
	waiters *waitList[struct{}]
}

// Go runs fn in a new fiber of l and returns the future of its result,
// as amphp's async does. From a fiber of l the fiber starts as a
// microtask, right after the current callback (and before anything
// ready in the next tick); from any other goroutine it starts in the next
// tick (Loop.Post), and if l is closed the future holds an error wrapping
// core.ErrLoopClosed. fn may suspend; a panic in it goes to the loop (the
// error handler, or Run) and the future's error is ErrPanicked.
func Go[T any](l *core.Loop, fn func() (T, error)) *Future[T] {
	if fn == nil {
		panic("fiber: Go called with a nil func")
	}
	f := &Future[T]{l: l, fn: fn}
	if l.InFiber() {
		l.QueueRunner((*starter[T])(f))
	} else if l.Post(f.run) != nil {
		f.fn = nil
		f.settle(*new(T), closedErr("Go"))
	}
	return f
}

// starter is a Future as the microtask that runs its function: a pointer
// in the core.Runner interface, it is queued with no closure, so that Go
// from a fiber allocates the future alone.
type starter[T any] Future[T]

func (s *starter[T]) Run() { (*Future[T])(s).run() }

func (f *Future[T]) run() {
	fn := f.fn
	f.fn = nil // what fn holds goes once it has run, as the future may live on
	returned := false
	defer func() {
		if !returned {
			var zero T
			f.settle(zero, ErrPanicked)
		}
	}()
	v, err := fn()
	returned = true
	f.settle(v, err)
}

func (f *Future[T]) settle(v T, err error) {
	f.done, f.v, f.err = true, v, err
	f.settled.Store(true)
	// The sole waiter came before every waiter on the list (await): first
	// come, first woken.
	if s := f.sole; s != nil {
		f.sole = nil
		s.Resume(nil)
	}
	if q := f.waiters; q != nil {
		for n := q.pop(); n != nil; n = q.pop() {
			n.wake(nil)
		}
	}
}

// Await returns the future's result once its function has returned, or
// ctx.Err() if ctx ends first, or an error wrapping core.ErrLoopClosed if
// the loop closes first. A future that is done returns its result at
// once, even after Close.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	if f.settled.Load() {
		return f.v, f.err
	}
	if !f.l.InFiber() {
		return f.awaitBlocking(ctx)
	}
	if f.sole != nil || f.waiters != nil || ctx.Done() != nil {
		v, err := f.awaitListed(ctx)
		if err != nil {
			err = named("Future.Await", err)
		}
		return v, err
	}
	// The common wait, a fiber that waits alone with a context that
	// cannot end, is written out here: it is all that an Await costs on
	// top of a suspension cycle (bench_test.go). Nothing but settle and
	// Close ends such a wait, so it needs no node, no generation and no
	// list. It keeps wait's rules: a wait that Close ends returns its
	// error even if settle came first, and a Resume from elsewhere is a
	// misuse.
	s := f.l.Suspension()
	f.sole = s
	if _, err := s.Suspend(); err != nil || f.sole != nil {
		f.sole = nil
		if err == nil {
			panic(errForeignResume)
		}
		var zero T
		return zero, named("Future.Await", err)
	}
	return f.v, f.err
}

// awaitBlocking is Await from a goroutine other than the loop's fibers:
// the Await is made for it in a fiber.
func (f *Future[T]) awaitBlocking(ctx context.Context) (T, error) {
	var v T
	err := blocking(f.l, ctx, "Future.Await", func(ctx context.Context) error {
		var err error
		v, err = f.Await(ctx)
		return err
	})
	return v, err
}

// awaitListed waits in a fiber of the loop on the future's wait list: a
// wait whose context can end, or one of several, or All's. The error of a
// wait that ended is not named: the caller names it.
func (f *Future[T]) awaitListed(ctx context.Context) (T, error) {
	if f.done {
		return f.v, f.err
	}
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	q := f.list()
	n := q.get(f.l.Suspension())
	q.push(n)
	err := wait(f.l, ctx, n)
	q.put(n)
	if err != nil {
		return zero, err
	}
	return f.v, f.err
}

// list returns the future's wait list, made for its first wait that
// needs a node.
func (f *Future[T]) list() *waitList[struct{}] {
	if f.waiters == nil {
		f.waiters = new(waitList[struct{}])
	}
	return f.waiters
}
