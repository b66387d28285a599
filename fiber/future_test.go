package fiber

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// A fiber's Await suspends it until the function returns (amp's
// Future::await), while the loop runs other work meanwhile.
func TestAwaitFromFiberSuspends(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var log []string
		runIn(t, l, func() {
			f := Go(l, func() (int, error) {
				log = append(log, "fn starts")
				sleep(l, time.Millisecond)
				log = append(log, "fn returns")
				return 42, nil
			})
			l.Defer(func(core.CallbackID) { log = append(log, "loop ran meanwhile") })
			v, err := f.Await(context.Background())
			log = append(log, "awaited")
			if v != 42 || err != nil {
				t.Errorf("Await = %v, %v; want 42, nil", v, err)
			}
			if v2, err2 := f.Await(context.Background()); v2 != 42 || err2 != nil {
				t.Errorf("second Await = %v, %v; want 42, nil", v2, err2)
			}
		})
		want := "fn starts|loop ran meanwhile|fn returns|awaited"
		if got := strings.Join(log, "|"); got != want {
			t.Errorf("order: %s\nwant:  %s", got, want)
		}
	})
}

// A goroutine's Await blocks it; with nobody running the loop, the Await
// runs it (RunUntil), and with a goroutine running it, it waits.
func TestAwaitFromGoroutineBlocks(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		f := Go(l, func() (string, error) {
			sleep(l, time.Millisecond)
			return "", errors.New("boom")
		})
		if _, err := f.Await(context.Background()); err == nil || err.Error() != "boom" {
			t.Errorf("Await with nobody running the loop = %v; want boom", err)
		}
		stop := testloop.Run(t, l)
		defer stop()
		g := Go(l, func() (string, error) { sleep(l, time.Millisecond); return "ok", nil })
		if v, err := g.Await(context.Background()); v != "ok" || err != nil {
			t.Errorf("Await with the loop run elsewhere = %q, %v", v, err)
		}
	})
}

// A context ends an Await with ctx.Err(); the future and its other
// waiters go on unharmed.
func TestAwaitContext(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			f, release := heldFuture(l, 7)
			other := Go(l, func() (int, error) { return f.Await(context.Background()) })
			ctx, cancel := context.WithCancel(context.Background())
			l.Delay(time.Millisecond, func(core.CallbackID) { cancel() })
			if _, err := f.Await(ctx); err != context.Canceled {
				t.Errorf("Await after cancel = %v; want context.Canceled", err)
			}
			dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer dcancel()
			if _, err := f.Await(dctx); err != context.DeadlineExceeded {
				t.Errorf("Await past the deadline = %v; want context.DeadlineExceeded", err)
			}
			if _, err := f.Await(dctx); err != context.DeadlineExceeded {
				t.Errorf("Await with an ended context = %v; want context.DeadlineExceeded", err)
			}
			release()
			if v, err := other.Await(context.Background()); v != 7 || err != nil {
				t.Errorf("the other waiter got %v, %v; want 7, nil", v, err)
			}
		})
	})
}

// Await, and Go, on a closed loop say so (core.ErrLoopClosed, named).
func TestAwaitOnClosedLoop(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var f *Future[int]
		runIn(t, l, func() {
			f = Go(l, func() (int, error) {
				_, err := l.Suspension().Suspend() // never resumed
				return 0, err
			})
		})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		// Close unwound the fiber: its Suspend returned ErrLoopClosed.
		if _, err := f.Await(context.Background()); !errors.Is(err, core.ErrLoopClosed) {
			t.Errorf("Await of a future that Close unwound = %v; want ErrLoopClosed", err)
		}
		g := Go(l, func() (int, error) { return 1, nil })
		_, err := g.Await(context.Background())
		if !errors.Is(err, core.ErrLoopClosed) || !strings.Contains(err.Error(), "fiber: Go") {
			t.Errorf("Go on a closed loop: Await = %v; want ErrLoopClosed naming Go", err)
		}
		h := &Future[int]{l: l}
		_, err = h.Await(context.Background())
		if !errors.Is(err, core.ErrLoopClosed) || !strings.Contains(err.Error(), "Future.Await") {
			t.Errorf("Await of a pending future on a closed loop = %v; want ErrLoopClosed naming Future.Await", err)
		}
	})
}

// A panic in the function reaches the loop (never lost) and the future
// fails with ErrPanicked.
func TestGoPanic(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var routed []error
		l.SetErrorHandler(func(err error) { routed = append(routed, err) })
		var got error
		runIn(t, l, func() {
			f := Go(l, func() (int, error) { panic("kaboom") })
			_, got = f.Await(context.Background())
		})
		if got != ErrPanicked {
			t.Errorf("Await = %v; want ErrPanicked", got)
		}
		if len(routed) != 1 || !strings.Contains(routed[0].Error(), "kaboom") {
			t.Errorf("the loop got %v; want the panic kaboom", routed)
		}
	})
}

// A future's waiters are woken in the order they came, whether they wait
// with a context that cannot end (the first such waits with no node) or
// one that can.
func TestAwaitWakesInOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bg := context.Background()
	// Waits whose context can end go on the future's list, the first one
	// that cannot end waits alone (sole) unless the list has some: the
	// order is the order of the waits either way.
	for _, order := range [][]context.Context{{bg, bg, ctx, bg}, {ctx, bg, bg, ctx}} {
		eachDriver(t, func(t *testing.T, l *core.Loop) {
			var log []string
			runIn(t, l, func() {
				f, release := heldFuture(l, 1)
				for i, c := range order {
					name := string(rune('a' + i))
					spawn(l, func() {
						if v, err := f.Await(c); v != 1 || err != nil {
							t.Errorf("%s: Await = %v, %v; want 1, nil", name, v, err)
						}
						log = append(log, name)
					})
				}
				until(l, func() bool { return futureWaiting(f) == len(order) })
				release()
				until(l, func() bool { return len(log) == len(order) })
			})
			if got := strings.Join(log, ""); got != "abcd" {
				t.Errorf("woken in the order %s; want abcd", got)
			}
		})
	}
}

// A wait that Close ends returns Close's error even when the future was
// settled first, while the waiter's resume could no longer run: here
// Close unwinds the future's fiber, whose function then returns a value,
// before it unwinds the waiter.
func TestAwaitEndedByCloseAfterSettle(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var settledFirst bool
		var err error
		runIn(t, l, func() {
			settled := false
			f := Go(l, func() (int, error) {
				_, _ = l.Suspension().Suspend() // never resumed: Close unwinds it
				settled = true
				return 1, nil
			})
			_, err = f.Await(context.Background())
			settledFirst = settled
		})
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if !settledFirst {
			t.Fatal("Close unwound the waiter before the future's fiber: the case did not happen")
		}
		if !errors.Is(err, core.ErrLoopClosed) || !strings.Contains(err.Error(), "Future.Await") {
			t.Errorf("Await ended by Close after the future settled = %v; want ErrLoopClosed naming Future.Await", err)
		}
	})
}

// A Resume of an awaiting fiber's Suspension from outside the package is
// a misuse that panics, whichever way the fiber waits; the future is
// left unharmed, and its other waiters get its result.
func TestAwaitResumedFromElsewherePanics(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var routed []error
		l.SetErrorHandler(func(err error) { routed = append(routed, err) })
		var got []string
		runIn(t, l, func() {
			f, release := heldFuture(l, 1)
			var sole, listed *core.Suspension
			spawn(l, func() { sole = l.Suspension(); _, _ = f.Await(context.Background()) })
			spawn(l, func() { listed = l.Suspension(); _, _ = f.Await(context.Background()) })
			spawn(l, func() {
				v, err := f.Await(context.Background())
				got = append(got, fmt.Sprint(v, err))
			})
			until(l, func() bool { return futureWaiting(f) == 3 })
			sole.Resume(nil)
			until(l, func() bool { return len(routed) == 1 })
			listed.Resume(nil)
			until(l, func() bool { return len(routed) == 2 })
			release()
			until(l, func() bool { return len(got) == 1 })
		})
		if len(routed) != 2 {
			t.Fatalf("the loop got %v; want two panics", routed)
		}
		for _, err := range routed {
			if !strings.Contains(err.Error(), errForeignResume) {
				t.Errorf("the loop got %v; want the panic %q", err, errForeignResume)
			}
		}
		if len(got) != 1 || got[0] != "1 <nil>" {
			t.Errorf("the third waiter got %v; want 1 <nil>", got)
		}
	})
}

// Once its function has run, a future no longer holds it: a future kept
// for its result keeps nothing the function captured.
func TestFutureDropsItsFunction(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var f *Future[int]
		var w weak.Pointer[[64]byte]
		runIn(t, l, func() {
			big := &[64]byte{7}
			w = weak.Make(big)
			f = Go(l, func() (int, error) { return int(big[0]), nil })
			if v, err := f.Await(context.Background()); v != 7 || err != nil {
				t.Errorf("Await = %v, %v; want 7, nil", v, err)
			}
		})
		runtime.GC()
		if w.Value() != nil {
			t.Errorf("the future still holds what its function captured")
		}
		runtime.KeepAlive(f)
	})
}
