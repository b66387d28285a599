package core_test

import (
	"context"
	"runtime/pprof"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// InFiber is true exactly on the loop's own fibers: not on main, not on a
// goroutine a callback starts, not in Await's goroutine, not in a fiber of
// another loop; and it is safe to call from any goroutine while the loop
// runs (this test runs with -race in CI).
func TestInFiber(t *testing.T) {
	l := newLoop(t)
	other := newLoop(t)
	if l.InFiber() {
		t.Error("InFiber on main before Run")
	}
	got := map[string]bool{}
	l.Defer(func(core.CallbackID) {
		got["callback"] = l.InFiber()
		child := make(chan bool)
		go func() { child <- l.InFiber() }()
		got["goroutine started by a callback"] = <-child
		v, _ := core.Await(l, func(context.Context) (bool, error) { return l.InFiber(), nil })
		got["Await's function"] = v
		got["callback after Await (another fiber may run it)"] = l.InFiber()
		got["other loop, from this loop's fiber"] = other.InFiber()
		pprof.Do(context.Background(), pprof.Labels("user", "x"), func(context.Context) {
			got["inside pprof.Do"] = l.InFiber()
		})
		pprof.Do(l.FiberContext(), pprof.Labels("user", "x"), func(context.Context) {})
		got["after pprof.Do(FiberContext)"] = l.InFiber()
	})
	l.Queue(func() { got["microtask"] = l.InFiber() })
	other.Defer(func(core.CallbackID) { got["fiber of another loop"] = l.InFiber() })
	if err := other.Run(); err != nil {
		t.Fatal(err)
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"callback":                        true,
		"goroutine started by a callback": false,
		"Await's function":                false,
		"callback after Await (another fiber may run it)": true,
		"other loop, from this loop's fiber":              false,
		"inside pprof.Do":                                 false,
		"microtask":                                       true,
		"after pprof.Do(FiberContext)":                    true,
		"fiber of another loop":                           false,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("InFiber in %s: %v, want %v", k, got[k], w)
		}
	}
	if l.InFiber() {
		t.Error("InFiber on main after Run")
	}
}

// A goroutine asking while the loop runs callbacks is never taken for a
// fiber, and the question is race-free.
func TestInFiberFromAnotherGoroutineWhileRunning(t *testing.T) {
	l := newLoop(t)
	stop := make(chan struct{})
	wrong := make(chan bool, 1)
	go func() {
		for {
			select {
			case <-stop:
				wrong <- false
				return
			default:
			}
			if l.InFiber() {
				wrong <- true
				return
			}
		}
	}()
	n := 0
	var tick func(core.CallbackID)
	tick = func(core.CallbackID) {
		if n++; n < 2000 {
			l.Defer(tick)
		}
	}
	l.Defer(tick)
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	if <-wrong {
		t.Fatal("a goroutine that is not a fiber was taken for one")
	}
}

// Done is closed when Close begins, and Close stays idempotent.
func TestDoneClosedByClose(t *testing.T) {
	l := core.New(newTimerDriver())
	done := l.Done()
	select {
	case <-done:
		t.Fatal("Done closed before Close")
	default:
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	<-l.Done()
}
