//go:build linux

package epoll_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/epoll"
	"github.com/revoltgo/eventloop/drivers/internal/drivertest"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func() (core.Driver, error) { return epoll.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return epoll.New() })
}

// closeLatency bounds how long the driver may take to notice a closed fd:
// the package doc promises at most a second (the longest sweep interval).
const closeLatency = 1500 * time.Millisecond

func newDriver(t testing.TB) *epoll.Driver {
	t.Helper()
	d, err := epoll.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// socketpair returns a connected, non-blocking pair, closed at cleanup
// unless the test closed them itself.
func socketpair(t testing.TB) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// TestLevelTriggered pins "as long as fd is readable and Read is registered,
// every Wait reports it", and that Write readiness comes with it.
func TestLevelTriggered(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 7, core.Read|core.Write); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, b)
	events := make([]core.Event, 4)
	for i := range 3 {
		n, err := d.Wait(events, 0)
		if err != nil || n != 1 || events[0] != (core.Event{Token: 7, Ready: core.Read | core.Write}) {
			t.Fatalf("Wait %d = %d, %v, %+v", i, n, err, events[:n])
		}
	}
}

// TestInterestZeroHangup pins "an interest of 0 ... reports nothing": a
// hung-up fd with interest 0 must not make Wait return at once, although
// epoll reports EPOLLHUP whatever the mask.
func TestInterestZeroHangup(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if err := d.Modify(a, 2, 0); err != nil {
		t.Fatal(err)
	}
	unix.Close(b)
	events := make([]core.Event, 4)
	returns := 0
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; returns++ {
		n, err := d.Wait(events, 50*time.Millisecond)
		if err != nil || n != 0 {
			t.Fatalf("Wait = %d, %v, %+v", n, err, events[:n])
		}
	}
	if returns > 12 {
		t.Fatalf("%d Waits returned in 100ms: the hung-up fd spins", returns)
	}
	if err := d.Modify(a, 3, core.Write); err != nil {
		t.Fatal(err)
	}
	if ev, ok := drivertest.WaitFor(t, d, 3, time.Second); !ok || ev.Ready != core.Write {
		t.Fatalf("after Modify to Write: %+v, %v", ev, ok)
	}
}

// TestClosedWhileRegistered pins "reports an Event with Closed set, once,
// and forgets the fd" for a number that stays free: epoll itself says
// nothing, so a Wait with no timeout must still come back.
func TestClosedWhileRegistered(t *testing.T) {
	for _, in := range []core.Interest{core.Read, 0} {
		t.Run(in.String(), func(t *testing.T) {
			d := newDriver(t)
			a, _ := socketpair(t)
			if err := d.Register(a, 5, in); err != nil {
				t.Fatal(err)
			}
			unix.Close(a)
			start := time.Now()
			ev, ok := drivertest.WaitFor(t, d, 5, 2*closeLatency)
			if !ok || !ev.Closed {
				t.Fatalf("got %+v, %v; want Closed", ev, ok)
			}
			if el := time.Since(start); el > closeLatency {
				t.Fatalf("noticed after %v, want at most %v", el, closeLatency)
			}
			if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Deregister after Closed = %v, want ErrNotExist", err)
			}
			n, err := d.Wait(make([]core.Event, 4), 20*time.Millisecond)
			if n != 0 || err != nil {
				t.Fatalf("Wait after Closed = %d, %v", n, err)
			}
		})
	}
}

// registerThenReuse registers a socket for Read under token 1, then makes
// its number name another socket, as a close and a reuse by the next open
// would; it returns the number and the new socket's peer.
func registerThenReuse(t *testing.T) (d *epoll.Driver, a, peer int) {
	t.Helper()
	d = newDriver(t)
	a, _ = socketpair(t)
	c, peer := socketpair(t)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup3(c, a, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	return d, a, peer
}

// TestClosedAndReused: the number of a watched fd is closed and reused by
// another file before anything is reported. The old registration is
// reported Closed (by the sweep), and Register of the new file works.
func TestClosedAndReused(t *testing.T) {
	t.Run("Sweep", func(t *testing.T) {
		d, _, e := registerThenReuse(t)
		drivertest.Write(t, e) // the new file is readable; the old token must not say so
		ev, ok := drivertest.WaitFor(t, d, 1, closeLatency)
		if !ok || !ev.Closed {
			t.Fatalf("got %+v, %v; want Closed", ev, ok)
		}
	})
	t.Run("Register", func(t *testing.T) {
		d, a, e := registerThenReuse(t)
		if err := d.Register(a, 2, core.Read); err != nil {
			t.Fatalf("Register of the reused number: %v", err)
		}
		drivertest.Write(t, e)
		events := make([]core.Event, 4)
		n, err := d.Wait(events, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got := map[core.Event]bool{}
		for _, ev := range events[:n] {
			got[ev] = true
		}
		if n, _ := d.Wait(events[n:], time.Second); n > 0 {
			for _, ev := range events[len(got) : len(got)+n] {
				got[ev] = true
			}
		}
		if !got[core.Event{Token: 1, Closed: true}] || !got[core.Event{Token: 2, Ready: core.Read}] {
			t.Fatalf("got %v; want Closed for 1 and Read for 2", got)
		}
	})
	t.Run("Modify", func(t *testing.T) {
		d, a, _ := registerThenReuse(t)
		if err := d.Modify(a, 3, core.Write); err != nil {
			t.Fatalf("Modify of the reused number: %v", err)
		}
		ev, ok := drivertest.WaitFor(t, d, 3, time.Second)
		if !ok || !ev.Closed {
			t.Fatalf("got %+v, %v; want Closed under the new token", ev, ok)
		}
	})
	t.Run("Deregister", func(t *testing.T) {
		d, a, _ := registerThenReuse(t)
		if err := d.Deregister(a); err != nil {
			t.Fatalf("Deregister of the reused number: %v", err)
		}
	})
}

// TestClosedWhileDuplicated: the user closes a watched fd while a dup keeps
// the file open, and the file stays readable. epoll keeps reporting the
// registration and cannot remove it; the driver must report Closed once and
// then block again, not spin.
func TestClosedWhileDuplicated(t *testing.T) {
	d := newDriver(t)
	epfd := d.Fd()
	a, b := socketpair(t)
	keep, err := unix.Dup(a)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(keep)
	if err := d.Register(a, 9, core.Read); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, b)
	unix.Close(a)

	events := make([]core.Event, 8)
	closed, returns := 0, 0
	deadline := time.Now().Add(closeLatency)
	for closed == 0 && time.Now().Before(deadline) {
		n, err := d.Wait(events, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events[:n] {
			if ev.Closed {
				closed++
			}
		}
	}
	if closed != 1 {
		t.Fatalf("Closed reported %d times before the deadline, want 1", closed)
	}
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond {
		n, err := d.Wait(events, 100*time.Millisecond)
		if err != nil || n != 0 {
			t.Fatalf("Wait after Closed = %d, %v, %+v", n, err, events[:n])
		}
		returns++
	}
	if returns > 10 {
		t.Fatalf("%d Waits returned in 300ms: the stale registration spins", returns)
	}
	if d.Fd() != epfd {
		t.Fatalf("Fd changed from %d to %d", epfd, d.Fd())
	}
	// The kernel lists an instance's registrations in fdinfo (proc(5)).
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", epfd))
	if err != nil {
		t.Skip(err)
	}
	if bytes.Contains(info, fmt.Appendf(nil, "tfd: %8d ", a)) {
		t.Fatalf("the stale registration of fd %d survives:\n%s", a, info)
	}
}

// TestFdInOuterEpoll: Fd is readable in another epoll instance whenever
// Wait has something to report, and the event is still there to Wait for.
func TestFdInOuterEpoll(t *testing.T) {
	d := newDriver(t)
	outer, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(outer)
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(d.Fd())}
	if err := unix.EpollCtl(outer, unix.EPOLL_CTL_ADD, d.Fd(), &ev); err != nil {
		t.Fatal(err)
	}
	a, b := socketpair(t)
	if err := d.Register(a, 4, core.Read); err != nil {
		t.Fatal(err)
	}
	evs := make([]unix.EpollEvent, 1)
	if n, _ := unix.EpollWait(outer, evs, 20); n != 0 {
		t.Fatalf("outer epoll ready with nothing to report")
	}
	drivertest.Write(t, b)
	if n, err := unix.EpollWait(outer, evs, 1000); n != 1 || err != nil {
		t.Fatalf("outer EpollWait = %d, %v", n, err)
	}
	events := make([]core.Event, 4)
	if n, err := d.Wait(events, 0); n != 1 || err != nil || events[0].Token != 4 {
		t.Fatalf("Wait = %d, %v, %+v", n, err, events[:n])
	}
	// A Wakeup makes the outer instance ready too.
	var buf [1]byte
	unix.Read(a, buf[:])
	d.Wakeup()
	if n, err := unix.EpollWait(outer, evs, 1000); n != 1 || err != nil {
		t.Fatalf("outer EpollWait after Wakeup = %d, %v", n, err)
	}
}
