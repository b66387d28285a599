package fiber

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Wait waits for every function; the first error cancels the others'
// context (errgroup's rule) and is what Wait returns.
func TestGroupFirstErrorCancels(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		bad := errors.New("bad")
		var cancelled, finished int
		var waited error
		runIn(t, l, func() {
			g := NewGroup(context.Background(), l)
			for range 3 {
				g.Go(func(ctx context.Context) error {
					_, err := NewQueue[int](l, 0).Recv(ctx) // nothing ever comes
					if err == context.Canceled && errors.Is(context.Cause(ctx), bad) {
						cancelled++
					}
					return err
				})
			}
			g.Go(func(ctx context.Context) error {
				sleep(l, time.Millisecond)
				return bad
			})
			g.Go(func(ctx context.Context) error {
				sleep(l, 3*time.Millisecond)
				finished++
				return nil
			})
			waited = g.Wait()
		})
		if waited != bad {
			t.Errorf("Wait = %v; want the first error, bad", waited)
		}
		if cancelled != 3 {
			t.Errorf("%d of 3 waiting functions saw their context cancelled by the first error", cancelled)
		}
		if finished != 1 {
			t.Errorf("Wait returned before the slow function did")
		}
	})
}

// Wait from a goroutine blocks until the group is done; with no error it
// returns nil and then cancels the context.
func TestGroupWaitFromGoroutine(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		g := NewGroup(context.Background(), l)
		var gctx context.Context
		sum := 0
		for i := range 4 {
			g.Go(func(ctx context.Context) error {
				gctx = ctx
				sleep(l, time.Duration(i)*time.Millisecond)
				sum += i
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if sum != 6 {
			t.Errorf("sum = %d after Wait; want 6", sum)
		}
		if gctx.Err() == nil {
			t.Errorf("the group's context lives on after Wait")
		}
		if err := g.Wait(); err != nil {
			t.Errorf("Wait of an idle group = %v", err)
		}
	})
}

// A panic in a group's function reaches the loop and fails the group.
func TestGroupPanic(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var routed int
		l.SetErrorHandler(func(error) { routed++ })
		var waited error
		runIn(t, l, func() {
			g := NewGroup(context.Background(), l)
			g.Go(func(context.Context) error { panic("no") })
			waited = g.Wait()
		})
		if waited != ErrPanicked || routed != 1 {
			t.Errorf("Wait = %v, %d panics routed; want ErrPanicked, 1", waited, routed)
		}
	})
}
