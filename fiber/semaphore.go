package fiber

import (
	"context"
	"fmt"

	"github.com/revoltgo/eventloop/core"
)

// Semaphore holds a number of units that fibers acquire and release,
// across suspensions (amphp/sync's LocalSemaphore, with
// golang.org/x/sync/semaphore's weighted Acquire). It is fair: waiters are
// served in the order they came (FIFO), and a waiter that wants more than
// is free holds back the ones behind it, even those that want less, so
// a large request is never starved.
//
// Acquire, TryAcquire and Release may be called from any goroutine: from a
// fiber of the semaphore's loop Acquire suspends that fiber; from any
// other goroutine it blocks it (and runs the loop if nobody does).
type Semaphore struct {
	l       *core.Loop
	size    int
	held    int
	waiters waitList[struct{}]
}

// NewSemaphore returns a semaphore of l with size units, all free. It
// panics if size is less than 1.
func NewSemaphore(l *core.Loop, size int) *Semaphore {
	if size < 1 {
		panic(fmt.Sprintf("fiber: NewSemaphore called with size %d; it must be at least 1", size))
	}
	s := &Semaphore{l: l, size: size}
	s.waiters.kick = s.grant
	return s
}

// Acquire takes n units, waiting until they are free and every earlier
// waiter has been served; it returns ctx.Err() if ctx ends first and an
// error wrapping core.ErrLoopClosed if the loop closes first, and then
// holds nothing. It panics if n is less than 1 or more than the size.
func (s *Semaphore) Acquire(ctx context.Context, n int) error {
	s.check("Acquire", n)
	if s.l.InFiber() { // first, so that the fiber's path makes no closure
		return named("Semaphore.Acquire", s.acquire(ctx, n))
	}
	return blocking(s.l, ctx, "Semaphore.Acquire", func(ctx context.Context) error { return s.acquire(ctx, n) })
}

func (s *Semaphore) acquire(ctx context.Context, n int) error {
	if s.waiters.head == nil && s.size-s.held >= n {
		s.held += n
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w := s.waiters.get(s.l.Suspension())
	w.n = n
	s.waiters.push(w)
	err := wait(s.l, ctx, w)
	s.waiters.put(w)
	return err // nil: grant counted the units in
}

// TryAcquire takes n units if they are free and nobody waits, and reports
// whether it did. It panics as Acquire does.
func (s *Semaphore) TryAcquire(n int) bool {
	s.check("TryAcquire", n)
	if s.l.InFiber() {
		return s.tryAcquire(n)
	}
	ok := false
	_ = blocking(s.l, context.Background(), "Semaphore.TryAcquire", func(context.Context) error {
		ok = s.tryAcquire(n)
		return nil
	})
	return ok
}

func (s *Semaphore) tryAcquire(n int) bool {
	if s.waiters.head == nil && s.size-s.held >= n {
		s.held += n
		return true
	}
	return false
}

// Release gives n units back, to the waiters that can now be served. It
// panics if n is less than 1 or more than are held.
func (s *Semaphore) Release(n int) {
	if n < 1 {
		panic(fmt.Sprintf("fiber: Semaphore.Release called with n = %d; it must be at least 1", n))
	}
	if s.l.InFiber() {
		s.release(n)
		return
	}
	_ = blocking(s.l, context.Background(), "Semaphore.Release", func(context.Context) error {
		s.release(n)
		return nil
	})
}

func (s *Semaphore) release(n int) {
	if n > s.held {
		panic(fmt.Sprintf("fiber: Semaphore.Release of %d units when %d are held: released more than acquired", n, s.held))
	}
	s.held -= n
	s.grant()
}

// grant serves waiters from the front while their units are free.
func (s *Semaphore) grant() {
	for w := s.waiters.head; w != nil && s.size-s.held >= w.n; w = s.waiters.head {
		s.waiters.remove(w)
		s.held += w.n
		w.wake(nil)
	}
}

func (s *Semaphore) check(what string, n int) {
	if n < 1 || n > s.size {
		panic(fmt.Sprintf("fiber: Semaphore.%s called with n = %d; it must be from 1 to the size, %d", what, n, s.size))
	}
}
