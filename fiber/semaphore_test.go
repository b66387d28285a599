package fiber

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Waiters are served in the order they came: a large request at the
// front holds back smaller ones behind it, so it is never starved.
func TestSemaphoreFIFO(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var log []string
		runIn(t, l, func() {
			s := NewSemaphore(l, 3)
			if err := s.Acquire(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			g := NewGroup(context.Background(), l)
			for _, n := range []int{3, 1} {
				g.Go(func(ctx context.Context) error {
					if err := s.Acquire(ctx, n); err != nil {
						return err
					}
					log = append(log, fmt.Sprint("got ", n))
					sleep(l, time.Millisecond)
					s.Release(n)
					return nil
				})
			}
			until(l, func() bool { return waiting(&s.waiters) == 2 })
			if s.TryAcquire(1) {
				t.Errorf("TryAcquire(1) passed the waiters (1 unit free)")
			}
			log = append(log, "release 1")
			s.Release(1) // 2 free: not enough for the front, so no one
			if n := waiting(&s.waiters); n != 2 {
				t.Errorf("%d waiting after the first Release; want 2 (the 1 behind the 3 waits its turn)", n)
			}
			log = append(log, "release 1")
			s.Release(1)
			_ = g.Wait()
			if s.held != 0 {
				t.Errorf("%d units held after all released", s.held)
			}
		})
		if got := strings.Join(log, "|"); got != "release 1|release 1|got 3|got 1" {
			t.Errorf("order %s; want release 1|release 1|got 3|got 1", got)
		}
	})
}

// A cancelled waiter at the front lets the ones behind it in.
func TestSemaphoreCancelledHead(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			s := NewSemaphore(l, 2)
			_ = s.Acquire(context.Background(), 1)
			ctx, cancel := context.WithCancel(context.Background())
			big := Go(l, func() (int, error) { return 0, s.Acquire(ctx, 2) })
			small := Go(l, func() (int, error) { return 0, s.Acquire(context.Background(), 1) })
			until(l, func() bool { return waiting(&s.waiters) == 2 })
			cancel()
			if _, err := big.Await(context.Background()); err != context.Canceled {
				t.Errorf("cancelled Acquire = %v", err)
			}
			if _, err := small.Await(context.Background()); err != nil {
				t.Errorf("the Acquire behind it = %v", err)
			}
			s.Release(2)
		})
	})
}

// Releasing more than is held, and sizes and counts out of range, panic
// naming the problem, from a fiber or a goroutine.
func TestSemaphoreMisuse(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		s := NewSemaphore(l, 2)
		const over = "fiber: Semaphore.Release of 2 units when 1 are held: released more than acquired"
		if !s.TryAcquire(1) {
			t.Fatal("TryAcquire of a free semaphore failed")
		}
		mustPanic(t, over, func() { s.Release(2) })
		runIn(t, l, func() { mustPanic(t, over, func() { s.Release(2) }) })
		s.Release(1)
		mustPanic(t, "fiber: Semaphore.Acquire called with n = 3; it must be from 1 to the size, 2", func() { _ = s.Acquire(context.Background(), 3) })
		mustPanic(t, "fiber: Semaphore.Release called with n = 0; it must be at least 1", func() { s.Release(0) })
		mustPanic(t, "fiber: NewSemaphore called with size 0; it must be at least 1", func() { NewSemaphore(l, 0) })
	})
}
