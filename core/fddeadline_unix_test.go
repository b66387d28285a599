//go:build unix

package core_test

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A deadline is kept as given, however long the goroutine that sets it
// is held up while it does (a preemption between two clock readings set
// it early by the time lost: a Read timed out before its deadline).
func TestFDDeadlineOneClockReading(t *testing.T) {
	l := core.New(newTimerDriver())
	defer l.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var p core.FD
	if err := p.Init(l, int(r.Fd()), net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	defer core.SetDeadlineHook(func() { time.Sleep(50 * time.Millisecond) })()
	for _, mode := range []core.Interest{core.Read, core.Write} {
		at := time.Now().Add(time.Hour)
		p.SetDeadline(mode, at)
		if kept, want := core.FDDeadline(&p, mode, at); kept != want {
			t.Errorf("mode %v: the deadline kept is %v off the one given", mode, time.Duration(kept-want))
		}
	}
}
