package fiber

import (
	"context"

	"github.com/revoltgo/eventloop/core"
)

// Mutex is a lock that may be held across suspensions (amphp/sync's
// LocalMutex): a fiber that holds it may wait on I/O, a timer or another
// primitive, and the others wait for it in turn. It is fair: Unlock hands
// the lock straight to the fiber that has waited longest (FIFO), so a
// fiber that comes later never takes it first.
//
// Lock, TryLock and Unlock may be called from any goroutine: from a fiber
// of the mutex's loop Lock suspends that fiber; from any other goroutine
// it blocks it (and runs the loop if nobody does). As with sync.Mutex the
// lock is not tied to who took it: one fiber or goroutine may lock it and
// another unlock it.
type Mutex struct {
	l       *core.Loop
	locked  bool
	waiters waitList[struct{}]
}

// NewMutex returns an unlocked mutex of l.
func NewMutex(l *core.Loop) *Mutex { return &Mutex{l: l} }

// Lock takes the lock, waiting while another holds it; it returns
// ctx.Err() if ctx ends first and an error wrapping core.ErrLoopClosed if
// the loop closes first, and then the lock is not held.
func (m *Mutex) Lock(ctx context.Context) error {
	if m.l.InFiber() { // first, so that the fiber's path makes no closure
		return named("Mutex.Lock", m.lock(ctx))
	}
	return blocking(m.l, ctx, "Mutex.Lock", m.lock)
}

func (m *Mutex) lock(ctx context.Context) error {
	if !m.locked {
		m.locked = true
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := m.waiters.get(m.l.Suspension())
	m.waiters.push(n)
	err := wait(m.l, ctx, n)
	m.waiters.put(n)
	return err // nil: Unlock handed the lock over
}

// TryLock takes the lock if it is free and nobody waits for it, and
// reports whether it did.
func (m *Mutex) TryLock() bool {
	if m.l.InFiber() {
		return m.tryLock()
	}
	ok := false
	_ = blocking(m.l, context.Background(), "Mutex.TryLock", func(context.Context) error {
		ok = m.tryLock()
		return nil
	})
	return ok
}

func (m *Mutex) tryLock() bool {
	if m.locked {
		return false
	}
	m.locked = true
	return true
}

// Unlock releases the lock, to the longest waiter if there is one. It
// panics if the mutex is not locked.
func (m *Mutex) Unlock() {
	if m.l.InFiber() {
		m.unlock()
		return
	}
	_ = blocking(m.l, context.Background(), "Mutex.Unlock", func(context.Context) error {
		m.unlock()
		return nil
	})
}

func (m *Mutex) unlock() {
	if !m.locked {
		panic("fiber: Unlock of an unlocked Mutex")
	}
	if n := m.waiters.pop(); n != nil {
		n.wake(nil) // the lock passes to n: it stays locked
		return
	}
	m.locked = false
}
