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
	done    bool
	settled atomic.Bool // done, for other goroutines: set after v and err
	v       T
	err     error
	waiters waitList[struct{}]
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
	f := &Future[T]{l: l}
	if !start(l, func() { f.run(fn) }) {
		f.settle(*new(T), closedErr("Go"))
	}
	return f
}

// start runs fn in a new fiber of l: a microtask from one of l's fibers,
// a post from elsewhere; false if l no longer takes posts.
func start(l *core.Loop, fn func()) bool {
	if l.InFiber() {
		l.Queue(fn)
		return true
	}
	return l.Post(fn) == nil
}

func (f *Future[T]) run(fn func() (T, error)) {
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
	for n := f.waiters.pop(); n != nil; n = f.waiters.pop() {
		n.wake(nil)
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
	if f.l.InFiber() {
		v, err := f.await(ctx)
		return v, named("Future.Await", err)
	}
	var v T
	err := blocking(f.l, ctx, "Future.Await", func(ctx context.Context) error {
		var err error
		v, err = f.await(ctx)
		return err
	})
	return v, err
}

func (f *Future[T]) await(ctx context.Context) (T, error) {
	if !f.done {
		var zero T
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		n := f.waiters.get(f.l.Suspension())
		f.waiters.push(n)
		err := wait(f.l, ctx, n)
		f.waiters.put(n)
		if err != nil {
			return zero, err
		}
	}
	return f.v, f.err
}
