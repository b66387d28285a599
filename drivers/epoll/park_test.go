//go:build linux

package epoll_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/epoll"
	"github.com/revoltgo/eventloop/drivers/internal/drivertest"
	"golang.org/x/sys/unix"
)

// waitInGoroutine runs d.Wait(events, timeout) on a goroutine of its own
// and returns the channel of its result.
func waitInGoroutine(d *epoll.Driver, timeout time.Duration) <-chan []core.Event {
	done := make(chan []core.Event, 1)
	go func() {
		events := make([]core.Event, 8)
		n, _ := d.Wait(events, timeout)
		done <- events[:n]
	}()
	return done
}

// waitState is the scheduler's state of the goroutine blocked in the
// driver's Wait ("IO wait", "syscall"), once it has one, or "" after 5 s.
func waitState() string {
	buf := make([]byte, 1<<20)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if !strings.Contains(g, "epoll.(*Driver).Wait(") {
				continue
			}
			head, _, _ := strings.Cut(g, "\n")
			// "goroutine 7 [IO wait]:" or "goroutine 7 [syscall, 2 minutes]:"
			_, state, _ := strings.Cut(head, "[")
			state, _, _ = strings.Cut(state, "]")
			state, _, _ = strings.Cut(state, ",")
			if state == "IO wait" || state == "syscall" {
				return state
			}
		}
	}
	return ""
}

// loopPerP sets GOMAXPROCS to 1 until t ends: one driver is then a loop
// per P, and its long waits park.
func loopPerP(t *testing.T) {
	t.Cleanup(func(n int) func() { return func() { runtime.GOMAXPROCS(n) } }(runtime.GOMAXPROCS(1)))
}

// A Wait with nothing ready and no timeout (or a long one), in a process
// with a loop per P, parks its goroutine in the runtime's netpoller,
// holding no thread in a system call, and an event wakes it.
func TestLongWaitParks(t *testing.T) {
	loopPerP(t)
	for _, timeout := range []time.Duration{-1, time.Minute} {
		d := newDriver(t)
		a, b := socketpair(t)
		if err := d.Register(a, 1, core.Read); err != nil {
			t.Fatal(err)
		}
		done := waitInGoroutine(d, timeout)
		if got := waitState(); got != "IO wait" {
			t.Errorf("Wait(%v) with nothing ready waits in state %q; want parked (IO wait)", timeout, got)
		}
		drivertest.Write(t, b)
		select {
		case evs := <-done:
			if len(evs) != 1 || evs[0].Token != 1 || evs[0].Ready&core.Read == 0 {
				t.Errorf("Wait(%v) = %+v; want fd %d readable (token 1)", timeout, evs, a)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Wait(%v) was not woken by a write 5 s ago", timeout)
		}
	}
}

// After a rebuild the parked Wait watches the new epoll instance: a fd
// registered after it wakes it.
func TestLongWaitParksAfterRebuild(t *testing.T) {
	loopPerP(t)
	d := newDriver(t)
	rebuildForStale(t, d)
	c, e := socketpair(t)
	if err := d.Register(c, 3, core.Read); err != nil {
		t.Fatal(err)
	}
	done := waitInGoroutine(d, -1)
	if got := waitState(); got != "IO wait" {
		t.Errorf("Wait(-1) after a rebuild waits in state %q; want parked (IO wait)", got)
	}
	drivertest.Write(t, e)
	select {
	case evs := <-done:
		if len(evs) != 1 || evs[0].Token != 3 {
			t.Errorf("Wait(-1) = %+v; want token 3", evs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a Wait parked after a rebuild was not woken by a fd registered after it")
	}
}

// With fewer epoll loops than Ps a long Wait blocks in epoll_wait, where
// sysmon leaves it alone; with a loop per P it parks.
func TestLongWaitParksOnlyWithALoopPerP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	for _, loops := range []int{1, 2} {
		if loops == 2 {
			newDriver(t)
		}
		want := map[int]string{1: "syscall", 2: "IO wait"}[loops]
		done := waitInGoroutine(d, -1)
		if got := waitState(); got != want {
			t.Errorf("with %d epoll drivers on 2 Ps, Wait(-1) waits in state %q; want %q", loops, got, want)
		}
		drivertest.Write(t, b)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Wait(-1) was not woken by a write 5 s ago")
		}
		var buf [8]byte
		_, _ = unix.Read(a, buf[:])
	}
}
