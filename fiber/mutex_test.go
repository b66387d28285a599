package fiber

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The lock is held across a suspension, and Unlock hands it to the
// fiber that waited longest (FIFO), never to one that comes later.
func TestMutexFIFOAcrossSuspensions(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var log []string
		runIn(t, l, func() {
			m := NewMutex(l)
			inside := 0
			g := NewGroup(context.Background(), l)
			for i := range 4 {
				g.Go(func(ctx context.Context) error {
					if err := m.Lock(ctx); err != nil {
						return err
					}
					inside++
					if inside != 1 {
						t.Errorf("%d fibers inside the lock", inside)
					}
					log = append(log, fmt.Sprint("in ", i))
					sleep(l, time.Millisecond) // held across a suspension
					inside--
					m.Unlock()
					return nil
				})
			}
			until(l, func() bool { return waiting(&m.waiters) == 3 })
			if m.TryLock() {
				t.Errorf("TryLock took the lock from its waiters")
			}
			_ = g.Wait()
			if !m.TryLock() {
				t.Errorf("TryLock of a free mutex failed")
			}
			m.Unlock()
		})
		if got := strings.Join(log, "|"); got != "in 0|in 1|in 2|in 3" {
			t.Errorf("order %s; want in 0|in 1|in 2|in 3", got)
		}
	})
}

// Unlock of an unlocked mutex panics, naming it, in the caller: a fiber
// or a goroutine.
func TestMutexUnlockUnlocked(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		m := NewMutex(l)
		const want = "fiber: Unlock of an unlocked Mutex"
		runIn(t, l, func() { mustPanic(t, want, m.Unlock) })
		mustPanic(t, want, m.Unlock)
		if err := m.Lock(context.Background()); err != nil {
			t.Fatal(err)
		}
		m.Unlock() // from a goroutine, locked from one
	})
}

// A context ends a waiting Lock without the lock; the next waiter gets it.
func TestMutexContext(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			m := NewMutex(l)
			_ = m.Lock(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			next := Go(l, func() (bool, error) { return true, m.Lock(context.Background()) })
			if err := m.Lock(ctx); err != context.DeadlineExceeded {
				t.Errorf("Lock past the deadline = %v", err)
			}
			m.Unlock()
			if _, err := next.Await(context.Background()); err != nil {
				t.Errorf("the next waiter's Lock = %v", err)
			}
			m.Unlock()
		})
	})
}
