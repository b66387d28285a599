package fiber

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// after returns a future of l that gives v (or fails with err) d from now.
func after[T any](l *core.Loop, d time.Duration, v T, err error) *Future[T] {
	return Go(l, func() (T, error) {
		sleep(l, d)
		return v, err
	})
}

// All waits for every future (amp's awaitAll), values in order and the
// failures joined; a context ends it with ctx.Err().
func TestAll(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			bad := errors.New("bad")
			a := after(l, 3*time.Millisecond, 1, nil)
			b := after(l, time.Millisecond, 2, bad)
			c := after(l, 2*time.Millisecond, 3, nil)
			vs, err := All(context.Background(), a, b, c)
			if len(vs) != 3 || vs[0] != 1 || vs[1] != 2 || vs[2] != 3 {
				t.Errorf("All values = %v; want [1 2 3]", vs)
			}
			if !errors.Is(err, bad) {
				t.Errorf("All error = %v; want bad", err)
			}
			if !a.done || !c.done {
				t.Errorf("All returned before every future was done")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			slow := &Future[int]{l: l} // never done
			if vs, err := All(ctx, a, slow); vs != nil || err != context.DeadlineExceeded {
				t.Errorf("All past its deadline = %v, %v; want nil, DeadlineExceeded", vs, err)
			}
		})
	})
}

// Any gives the first success (amp's awaitAny) and fails only when all
// fail; First gives the first to be done, failed or not (awaitFirst).
func TestAnyFirst(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			e1, e2 := errors.New("e1"), errors.New("e2")
			fail := after(l, time.Millisecond, 0, e1)
			win := after(l, 3*time.Millisecond, 2, nil)
			late := after(l, 6*time.Millisecond, 3, nil)
			if v, err := Any(context.Background(), fail, late, win); v != 2 || err != nil {
				t.Errorf("Any = %v, %v; want 2, nil", v, err)
			}
			if v, err := First(context.Background(), late, fail); v != 0 || err != e1 {
				t.Errorf("First of done ones = %v, %v; want the first done in order: 0, e1", v, err)
			}
			fail2 := after(l, time.Millisecond, 0, e2)
			if _, err := Any(context.Background(), fail, fail2); !errors.Is(err, e1) || !errors.Is(err, e2) {
				t.Errorf("Any when all fail = %v; want e1 and e2", err)
			}
			x := after(l, 4*time.Millisecond, 10, nil)
			y := after(l, time.Millisecond, 20, nil)
			if v, err := First(context.Background(), x, y); v != 20 || err != nil {
				t.Errorf("First = %v, %v; want 20, nil", v, err)
			}
			if n := futureWaiting(x); n != 0 {
				t.Errorf("First left %d waiters on the future it did not take", n)
			}
			ctx, cancel := context.WithCancel(context.Background())
			l.Delay(time.Millisecond, func(core.CallbackID) { cancel() })
			slow := &Future[int]{l: l} // never done
			if _, err := First(ctx, slow); err != context.Canceled {
				t.Errorf("First cancelled = %v; want context.Canceled", err)
			}
			if _, err := Any(ctx, slow); err != context.Canceled {
				t.Errorf("Any with an ended context = %v; want context.Canceled", err)
			}
			if n := futureWaiting(slow); n != 0 {
				t.Errorf("a cancelled First left %d waiters on the future", n)
			}
		})
	})
}

// The combinators refuse what cannot work, naming it.
func TestCombineMisuse(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		other := testloopNew(t, l)
		runIn(t, l, func() {
			mustPanic(t, "fiber: First called with no futures", func() { _, _ = First[int](context.Background()) })
			a := Go(l, func() (int, error) { return 1, nil })
			b := &Future[int]{l: other}
			mustPanic(t, "fiber: Any called with futures of different loops", func() { _, _ = Any(context.Background(), a, b) })
		})
	})
}
