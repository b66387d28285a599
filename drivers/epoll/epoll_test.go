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
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func() (core.Driver, error) { return epoll.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return epoll.New() })
}

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

// TestClosedWhileRegistered: epoll drops a closed fd silently, whether in
// the kernel or parked (interest 0); the driver reports nothing for it,
// Wait blocks rather than spins, and Deregister, as the core calls it once
// it has noticed, succeeds.
func TestClosedWhileRegistered(t *testing.T) {
	for _, in := range []core.Interest{core.Read | core.Write, 0} {
		t.Run(in.String(), func(t *testing.T) {
			d := newDriver(t)
			a, b := socketpair(t)
			drivertest.Write(t, b)
			if err := d.Register(a, 5, in); err != nil {
				t.Fatal(err)
			}
			unix.Close(a)
			expectBlocks(t, d, 3, 20*time.Millisecond)
			if err := d.Deregister(a); err != nil {
				t.Fatalf("Deregister of closed fd: %v, want nil", err)
			}
			if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("second Deregister = %v, want ErrNotExist", err)
			}
		})
	}
}

// expectBlocks makes n Waits of dur each and fails if one reports anything
// or if together they blocked for less than half of n*dur (a spin).
func expectBlocks(t *testing.T, d *epoll.Driver, n int, dur time.Duration) {
	t.Helper()
	events := make([]core.Event, 8)
	start := time.Now()
	for range n {
		if k, err := d.Wait(events, dur); k != 0 || err != nil {
			t.Fatalf("Wait = %d, %v, %+v; want 0, nil", k, err, events[:k])
		}
	}
	if el := time.Since(start); el < time.Duration(n)*dur/2 {
		t.Fatalf("%d Waits of %v returned after %v in all: a spin", n, dur, el)
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
// another file before anything is reported. epoll_ctl says ENOENT for the
// number: Modify reports the old registration Closed, Deregister succeeds,
// and Register after it watches the new file.
func TestClosedAndReused(t *testing.T) {
	t.Run("Modify", func(t *testing.T) {
		d, a, _ := registerThenReuse(t)
		if err := d.Modify(a, 3, core.Write); err != nil {
			t.Fatalf("Modify of the reused number: %v", err)
		}
		ev, ok := drivertest.WaitFor(t, d, 3, time.Second)
		if !ok || !ev.Closed {
			t.Fatalf("got %+v, %v; want Closed under the new token", ev, ok)
		}
		expectBlocks(t, d, 3, 20*time.Millisecond)
		if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Deregister after Closed = %v, want ErrNotExist", err)
		}
	})
	t.Run("DeregisterThenRegister", func(t *testing.T) {
		d, a, e := registerThenReuse(t)
		if err := d.Deregister(a); err != nil {
			t.Fatalf("Deregister of the reused number: %v", err)
		}
		if err := d.Register(a, 2, core.Read); err != nil {
			t.Fatalf("Register of the reused number: %v", err)
		}
		drivertest.Write(t, e)
		if ev, ok := drivertest.WaitFor(t, d, 2, time.Second); !ok || ev != (core.Event{Token: 2, Ready: core.Read}) {
			t.Fatalf("got %+v, %v; want Read under token 2", ev, ok)
		}
	})
}

// TestClosedWhileDuplicated: the user closes a watched fd while a dup keeps
// the file open, and the file stays readable. epoll keeps reporting the
// registration and offers no way to remove it; until the core deregisters
// the fd it is reported as its own, and after that Wait must block again,
// not spin. The instance is rebuilt under the same number.
func TestClosedWhileDuplicated(t *testing.T) {
	d := newDriver(t)
	epfd := d.Fd()
	a := rebuildForStale(t, d)
	expectBlocks(t, d, 5, 20*time.Millisecond)
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

// rebuildForStale makes d rebuild its epoll instance: a watched fd is
// closed while a dup keeps its file open and ready, and deregistered; the
// next Wait meets its stale event. It returns the closed fd's number.
func rebuildForStale(t *testing.T, d *epoll.Driver) int {
	t.Helper()
	a, b := socketpair(t)
	keep, err := unix.Dup(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(keep) })
	if err := d.Register(a, 9, core.Read); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, b)
	unix.Close(a)
	if ev, ok := drivertest.WaitFor(t, d, 9, time.Second); !ok || ev.Token != 9 {
		t.Fatalf("got %+v, %v; want token 9", ev, ok)
	}
	if err := d.Deregister(a); err != nil {
		t.Fatalf("Deregister of the closed fd: %v", err)
	}
	d.Wait(make([]core.Event, 8), 0) // the stale event: a rebuild
	return a
}

// TestModifyOfClosedDuplicate: Modify of a watched fd that the user closed
// while a dup keeps the file open gets EBADF from epoll_ctl; it reports
// Closed once, and the registration epoll keeps must not make Wait spin.
func TestModifyOfClosedDuplicate(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	keep, err := unix.Dup(a)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(keep)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, b)
	unix.Close(a)
	if err := d.Modify(a, 2, core.Read|core.Write); err != nil {
		t.Fatalf("Modify of the closed fd: %v", err)
	}
	events := make([]core.Event, 8)
	closed := 0
	for range 3 {
		n, err := d.Wait(events, 20*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events[:n] {
			if ev != (core.Event{Token: 2, Closed: true}) {
				t.Fatalf("unexpected event %+v", ev)
			}
			closed++
		}
	}
	if closed != 1 {
		t.Fatalf("Closed reported %d times, want once", closed)
	}
	expectBlocks(t, d, 5, 20*time.Millisecond)
}

// TestEEXISTTakenOver: a watched number is closed while a dup keeps the
// file open, deregistered (epoll keeps the registration), and made to name
// the same file again before any Wait. Register then finds the file
// registered already (EEXIST) and takes the registration over.
func TestEEXISTTakenOver(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	keep, err := unix.Dup(a)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(keep)
	if err := d.Register(a, 1, core.Write); err != nil {
		t.Fatal(err)
	}
	unix.Close(a)
	if err := d.Deregister(a); err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup3(keep, a, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := d.Register(a, 2, core.Read); err != nil {
		t.Fatalf("Register over the kept registration: %v", err)
	}
	expectBlocks(t, d, 3, 20*time.Millisecond) // Read only now: not writable-ready
	drivertest.Write(t, b)
	if ev, ok := drivertest.WaitFor(t, d, 2, time.Second); !ok || ev != (core.Event{Token: 2, Ready: core.Read}) {
		t.Fatalf("got %+v, %v; want Read under token 2", ev, ok)
	}
}

// TestRegularFileClosed: a regular file (EPERM from epoll_ctl, so kept out
// of the kernel) is reported ready; once it is closed, Deregister succeeds
// and Wait blocks again.
func TestRegularFileClosed(t *testing.T) {
	d := newDriver(t)
	f, err := os.CreateTemp(t.TempDir(), "regular")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Register(fd, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if ev, ok := drivertest.WaitFor(t, d, 1, time.Second); !ok || ev != (core.Event{Token: 1, Ready: core.Read}) {
		t.Fatalf("got %+v, %v; want Read", ev, ok)
	}
	unix.Close(fd)
	if err := d.Deregister(fd); err != nil {
		t.Fatalf("Deregister of a closed regular file: %v", err)
	}
	expectBlocks(t, d, 3, 20*time.Millisecond)
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
