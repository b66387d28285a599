//go:build unix

package core_test

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Stop disarms an armed watch: it reports it, the func never runs, and the
// direction is free for the next watch; a watch never armed, or stopped
// already, reports false.
func TestWatchStopDisarms(t *testing.T) {
	l := core.New(newScriptFD())
	defer l.Close()
	p := lockFD(t, l)
	defer p.Close()
	var x, y core.FDWatch
	ran := false
	var stops [4]bool
	var errs [2]error
	l.Defer(func(core.CallbackID) {
		stops[0] = y.Stop() // never armed
		errs[0] = p.Watch(core.Read, &x, func() { ran = true })
		stops[1] = x.Stop()
		stops[2] = x.Stop()
		errs[1] = p.Watch(core.Read, &y, func() { ran = true }) // panics if x still holds the direction
		stops[3] = y.Stop()
		p.SetDeadline(core.Read, time.Now().Add(-time.Second)) // would run an armed watch's func, were it OnDeadline
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if errs != [2]error{} || stops != [4]bool{false, true, false, true} || ran {
		t.Fatalf("Watch: %v; Stop before arming, after, again, of the next watch: %v; a func ran: %v; want no errors, [false true false true], false", errs, stops, ran)
	}
}

// A Referenced watch keeps Run going while it is armed (an unreferenced
// timer finds Run still going), and no longer once it is stopped: Run
// returns without waiting for the next timer.
func TestReferencedWatchHoldsRunUntilStopped(t *testing.T) {
	l := core.New(newScriptFD())
	defer l.Close()
	p := lockFD(t, l)
	defer p.Close()
	x := core.FDWatch{Referenced: true}
	held, stuck := false, false
	// Unreferenced, both: they keep nothing going themselves.
	l.Unreference(l.Delay(10*time.Millisecond, func(core.CallbackID) {
		held = true
		x.Stop()
	}))
	l.Unreference(l.Delay(5*time.Second, func(core.CallbackID) {
		stuck = true
		l.Stop()
	}))
	l.Defer(func(core.CallbackID) {
		if err := p.Watch(core.Read, &x, func() {}); err != nil {
			t.Error(err)
		}
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if !held || stuck {
		t.Fatalf("Run went on while the watch was armed: %v, and until the 5 s guard after it was stopped: %v; want true, false", held, stuck)
	}
}
