//go:build unix && !aix

package netpoll_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/internal/drivertest"
	"github.com/revoltgo/eventloop/drivers/netpoll"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func() (core.Driver, error) { return netpoll.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return netpoll.New() })
}

func newDriver(t testing.TB) *netpoll.Driver {
	t.Helper()
	d, err := netpoll.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// socketpair returns a connected pair, non-blocking unless blocking is
// given, closed at cleanup unless the test closed them itself.
func socketpair(t testing.TB, blocking ...bool) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		if len(blocking) == 0 || !blocking[0] {
			unix.SetNonblock(fd, true)
		}
	}
	return fds[0], fds[1]
}

// TestLevelTriggered pins "as long as fd is readable and Read is registered,
// every Wait reports it" although the runtime's poller is edge-triggered,
// and that readiness goes away once the data is read.
func TestLevelTriggered(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 7, core.Read); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, b)
	if ev, ok := drivertest.WaitFor(t, d, 7, time.Second); !ok || ev.Ready != core.Read {
		t.Fatalf("first report: %+v, %v", ev, ok)
	}
	events := make([]core.Event, 4)
	for i := range 3 {
		n, err := d.Wait(events, 0)
		if err != nil || n != 1 || events[0] != (core.Event{Token: 7, Ready: core.Read}) {
			t.Fatalf("Wait %d = %d, %v, %+v", i, n, err, events[:n])
		}
	}
	var buf [8]byte
	unix.Read(a, buf[:])
	if n, err := d.Wait(events, 20*time.Millisecond); n != 0 || err != nil {
		t.Fatalf("Wait after the read = %d, %v, %+v", n, err, events[:n])
	}
	// Re-armed: new data is reported again.
	drivertest.Write(t, b)
	if ev, ok := drivertest.WaitFor(t, d, 7, time.Second); !ok || ev.Ready != core.Read {
		t.Fatalf("after re-arm: %+v, %v", ev, ok)
	}
}

// TestInterestZeroHangup: a hung-up fd with interest 0 reports nothing and
// does not make Wait spin; Modify back to Write reports the hang-up.
func TestInterestZeroHangup(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 1, 0); err != nil {
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
	if err := d.Modify(a, 3, core.Read); err != nil {
		t.Fatal(err)
	}
	if ev, ok := drivertest.WaitFor(t, d, 3, time.Second); !ok || ev.Ready != core.Read {
		t.Fatalf("after Modify to Read: %+v, %v", ev, ok)
	}
}

// TestClosedWhileRegistered: the dup keeps the file open (the write makes
// it readable), yet the next Wait polls the user's number, finds it free,
// reports it Closed once and forgets it, closing the dup.
func TestClosedWhileRegistered(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 5, core.Read); err != nil {
		t.Fatal(err)
	}
	unix.Close(a)
	drivertest.Write(t, b)
	events := make([]core.Event, 4)
	if n, err := d.Wait(events, time.Second); n != 1 || err != nil || events[0] != (core.Event{Token: 5, Closed: true}) {
		t.Fatalf("Wait = %d, %v, %+v; want one Closed event for token 5", n, err, events[:n])
	}
	if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Deregister after Closed = %v, want ErrNotExist", err)
	}
	// Forgotten means the dup is closed too: the peer sees the end (a
	// reset, since the socket was closed with unread data).
	var buf [1]byte
	if _, err := unix.Read(b, buf[:]); err == unix.EAGAIN {
		t.Fatal("the peer is still connected: the dup survived")
	}
}

// TestDeregisterOfReusedNumberReleasesTheOldFile: the number of a watched
// fd is closed and taken by another socket; Deregister succeeds and closes
// the dup, so the old socket's peer sees the end, and a Register of the
// number then watches the new socket.
func TestDeregisterOfReusedNumberReleasesTheOldFile(t *testing.T) {
	d := newDriver(t)
	a, oldPeer := socketpair(t)
	c, newPeer := socketpair(t)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(c, a); err != nil {
		t.Fatal(err)
	}
	if err := d.Deregister(a); err != nil {
		t.Fatalf("Deregister of the reused number: %v", err)
	}
	var buf [1]byte
	if n, err := unix.Read(oldPeer, buf[:]); n != 0 || err != nil {
		t.Fatalf("the old socket's peer reads %d, %v; want end of stream (the dup survived)", n, err)
	}
	if err := d.Register(a, 2, core.Read); err != nil {
		t.Fatal(err)
	}
	drivertest.Write(t, newPeer)
	if ev, ok := drivertest.WaitFor(t, d, 2, time.Second); !ok || ev.Ready != core.Read {
		t.Fatalf("got %+v, %v; want Read for token 2", ev, ok)
	}
}

// TestNoGoroutineOrDupSurvives: a helper is started for a direction found
// not ready, kept when Modify drops that direction (it is just not re-armed),
// stopped by Deregister and by Close, and the dups are closed.
func TestNoGoroutineOrDupSurvives(t *testing.T) {
	fds := openFds(t)
	d, err := netpoll.New()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// A helper that was just started may not be listed yet. One that was
	// stopped has returned when Deregister or Close returns (they wait for
	// it), but its goroutine may stay listed a moment while it unwinds
	// (a loaded machine may delay it); so the count may take a moment to
	// settle either way, and one that never exits still fails.
	helpers := func(want int, when string) {
		t.Helper()
		n := countHelpers()
		for deadline := time.Now().Add(time.Second); n != want && time.Now().Before(deadline); n = countHelpers() {
			time.Sleep(time.Millisecond)
		}
		if n != want {
			t.Fatalf("%d helpers %s, want %d", n, when, want)
		}
	}
	events := make([]core.Event, 64)
	var socks []int
	for i := range 20 {
		a, _ := socketpair(t)
		socks = append(socks, a)
		if err := d.Register(a, core.Token(i), core.Read|core.Write); err != nil {
			t.Fatal(err)
		}
	}
	helpers(0, "before a Wait")
	if n, err := d.Wait(events, 0); n != 20 || err != nil {
		t.Fatalf("Wait = %d, %v; want 20 writable", n, err)
	}
	helpers(20, "once Read is found not ready (Write is ready: no helper)")
	full, _ := socketpair(t)
	for {
		if _, err := unix.Write(full, make([]byte, 1<<16)); err != nil {
			break
		}
	}
	socks = append(socks, full)
	if err := d.Register(full, 99, core.Write); err != nil {
		t.Fatal(err)
	}
	d.Wait(events, 0)
	helpers(21, "with a full socket watched for Write")
	for _, a := range socks[:10] {
		if err := d.Modify(a, 1, core.Write); err != nil {
			t.Fatal(err)
		}
	}
	helpers(21, "after Modify dropped Read from 10")
	for _, a := range socks[5:15] {
		if err := d.Deregister(a); err != nil {
			t.Fatal(err)
		}
	}
	helpers(11, "after Deregister of 10")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	helpers(0, "after Close")
	if got, want := openFds(t), fds+2*len(socks); got != want {
		t.Fatalf("%d fds open after Close, want %d (the sockets only)", got, want)
	}
}

// countHelpers counts the driver's helper goroutines by their stacks; other
// goroutines come and go with the runtime and the testing package.
func countHelpers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("netpoll.(*watch).help("))
}

func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/dev/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents) - 1 // ReadDir's own fd
}

// TestBlockingFdKeepsItsFlags: the driver leaves O_NONBLOCK as it found it,
// although the dup shares it with the user's fd, and still reports.
func TestBlockingFdKeepsItsFlags(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t, true)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	fl, err := unix.FcntlInt(uintptr(a), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("flags after Register = %#x, %v: O_NONBLOCK was left set", fl, err)
	}
	drivertest.Write(t, b)
	if ev, ok := drivertest.WaitFor(t, d, 1, time.Second); !ok || ev.Ready != core.Read {
		t.Fatalf("got %+v, %v", ev, ok)
	}
}

// BenchmarkCostPerWatch measures what watched fds cost, registered for Read
// and found not ready, so each with its helper armed: an op registers and
// arms perOp of them, and the custom metrics give each one's share of heap,
// stack and goroutines.
func BenchmarkCostPerWatch(b *testing.B) {
	const perOp = 500
	socks := make([]int, perOp)
	for i := range socks {
		socks[i], _ = socketpair(b)
	}
	events := make([]core.Event, 1)
	var heap, stack, goroutines int64
	for range b.N {
		d, err := netpoll.New()
		if err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		for i, a := range socks {
			if err := d.Register(a, core.Token(i), core.Read); err != nil {
				b.Fatal(err)
			}
		}
		d.Wait(events, 0)
		for deadline := time.Now().Add(time.Second); countHelpers() < perOp && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += int64(after.HeapInuse) - int64(before.HeapInuse)
		stack += int64(after.StackInuse) - int64(before.StackInuse)
		goroutines += int64(countHelpers())
		d.Close()
		b.StartTimer()
	}
	per := float64(b.N * perOp)
	b.ReportMetric(float64(heap)/per, "heap-B/fd")
	b.ReportMetric(float64(stack)/per, "stack-B/fd")
	b.ReportMetric(float64(goroutines)/per, "goroutines/fd")
}
