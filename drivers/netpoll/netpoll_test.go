//go:build unix

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
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func() (core.Driver, error) { return netpoll.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return netpoll.New() })
}

// closeLatency bounds how long the driver may take to notice a closed fd:
// the package doc promises at most a second (the longest sweep interval).
const closeLatency = 1500 * time.Millisecond

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

// TestClosedWhileRegistered pins "reports an Event with Closed set, once,
// and forgets the fd": the dup keeps the file open, so only the sweep sees
// the close.
func TestClosedWhileRegistered(t *testing.T) {
	d := newDriver(t)
	a, b := socketpair(t)
	if err := d.Register(a, 5, core.Read); err != nil {
		t.Fatal(err)
	}
	unix.Close(a)
	drivertest.Write(t, b) // the dup keeps the socket open: this makes it readable
	start := time.Now()
	for {
		ev, ok := drivertest.WaitFor(t, d, 5, 2*closeLatency)
		if !ok {
			t.Fatal("no Closed event")
		}
		if ev.Closed {
			break
		}
	}
	if el := time.Since(start); el > closeLatency {
		t.Fatalf("noticed after %v, want at most %v", el, closeLatency)
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

// registerThenReuse registers a socket for Read under token 1, then makes
// its number name another socket, as a close and a reuse by the next open
// would; it returns the number and the new socket's peer.
func registerThenReuse(t *testing.T) (d *netpoll.Driver, a, peer int) {
	t.Helper()
	d = newDriver(t)
	a, _ = socketpair(t)
	c, peer := socketpair(t)
	if err := d.Register(a, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(c, a); err != nil {
		t.Fatal(err)
	}
	return d, a, peer
}

// TestClosedAndReused: the number of a watched fd is closed and reused by
// another file; the old registration is reported Closed, by the sweep or by
// Register of the new file, which then works.
func TestClosedAndReused(t *testing.T) {
	t.Run("Sweep", func(t *testing.T) {
		d, _, _ := registerThenReuse(t)
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
		got := map[core.Event]bool{}
		events := make([]core.Event, 4)
		for deadline := time.Now().Add(time.Second); len(got) < 2 && time.Now().Before(deadline); {
			n, err := d.Wait(events, time.Until(deadline))
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events[:n] {
				got[ev] = true
			}
		}
		if !got[core.Event{Token: 1, Closed: true}] || !got[core.Event{Token: 2, Ready: core.Read}] {
			t.Fatalf("got %v; want Closed for 1 and Read for 2", got)
		}
	})
}

// TestNoGoroutineOrDupSurvives: a helper is started for a direction found
// not ready, stopped by Modify dropping that direction, by Deregister and by
// Close, and the dups are closed.
func TestNoGoroutineOrDupSurvives(t *testing.T) {
	fds := openFds(t)
	d, err := netpoll.New()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// A helper that was just started may not be listed yet. One that was
	// stopped has left its wait when Modify, Deregister or Close returns
	// (they wait for its done channel), but its goroutine is still listed
	// until it returns past the deferred close, which a loaded machine may
	// delay; so the count may take a moment to settle either way, and one
	// that never exits still fails.
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
	helpers(11, "after Modify dropped Read from 10")
	for _, a := range socks[10:15] {
		if err := d.Deregister(a); err != nil {
			t.Fatal(err)
		}
	}
	helpers(6, "after Deregister of 5")
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
	return bytes.Count(buf, []byte("netpoll.(*helper).run("))
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

// TestCostPerWatch measures what a watched fd costs (reported with -v, and
// quoted in the package doc): registered for Read, found not ready, so with
// its helper armed.
func TestCostPerWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	const n = 500
	d := newDriver(t)
	socks := make([]int, n)
	for i := range socks {
		socks[i], _ = socketpair(t)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, a := range socks {
		if err := d.Register(a, core.Token(i), core.Read); err != nil {
			t.Fatal(err)
		}
	}
	d.Wait(make([]core.Event, 1), 0)
	for deadline := time.Now().Add(time.Second); countHelpers() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapInuse) - int64(before.HeapInuse)
	stack := int64(after.StackInuse) - int64(before.StackInuse)
	t.Logf("per fd watched for Read and armed: %d goroutine, 1 dup, %d B heap, %d B stack",
		countHelpers()/n, heap/n, stack/n)
}
