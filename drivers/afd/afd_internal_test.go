//go:build windows

package afd

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

func newDriver(t *testing.T) *Driver {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func pair(t *testing.T) (a, b int) {
	t.Helper()
	x, y, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { winsock.Close(x); winsock.Close(y) })
	return int(x), int(y)
}

// armed registers fd for reading with token tok and has a Wait submit its
// poll, which stays pending (fd is not readable); it returns an events
// buffer for the Waits that follow.
func armed(t *testing.T, d *Driver, fd int, tok driver.Token) []driver.Event {
	t.Helper()
	if err := d.Register(fd, tok, driver.Read); err != nil {
		t.Fatal(err)
	}
	ev := make([]driver.Event, 8)
	if n, err := d.Wait(ev, 0); n != 0 || err != nil {
		t.Fatalf("Wait = %d, %v", n, err)
	}
	return ev
}

func TestWaitMsRoundsUpAndCaps(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want uint32
	}{
		{-1, windows.INFINITE},
		{0, 0},
		{1, 1}, // never down to a poll
		{time.Millisecond, 1},
		{time.Millisecond + 1, 2},
		{maxWaitMs * time.Millisecond, maxWaitMs},
		{1<<63 - 1, maxWaitMs},
	} {
		if got := waitMs(c.in); got != c.want {
			t.Errorf("waitMs(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

// A reset or a failed connect makes every registered interest ready; the
// peer's shutdown makes the socket readable only.
func TestReadinessIsWithinInterest(t *testing.T) {
	rw := driver.Read | driver.Write
	for _, c := range []struct {
		ev   uint32
		in   driver.Interest
		want driver.Interest
	}{
		{pollReceive, driver.Read, driver.Read},
		{pollReceive, driver.Write, 0},
		{pollAccept, rw, driver.Read},
		{pollSend, rw, driver.Write},
		{pollReceive | pollSend, rw, rw},
		{pollDisconnect, rw, driver.Read},
		{pollDisconnect, driver.Write, 0},
		{pollAbort, driver.Write, driver.Write},
		{pollAbort, rw, rw},
		{pollConnectFail, driver.Read, driver.Read},
		{pollAbort, 0, 0},
	} {
		if got := readiness(c.ev, c.in); got != c.want {
			t.Errorf("readiness(%#x, %v) = %v, want %v", c.ev, c.in, got, c.want)
		}
	}
}

// The kernel owns a pending poll's op until its completion is dequeued:
// a socket deregistered with a poll pending keeps its slot until then, so
// that a registration made meanwhile cannot get an op the kernel may
// still write to. (Deregister waits for the completion, settle; here it
// is made to give up at once, as when the completion is late.)
func TestSlotOfAPendingPollWaitsForItsCompletion(t *testing.T) {
	defer func(d time.Duration) { settleMax = d }(settleMax)
	settleMax = 0
	d := newDriver(t)
	a, _ := pair(t)
	c, _ := pair(t)
	ev := armed(t, d, a, 1)
	old := d.index[a]
	if d.slots[old].state != polling || d.pending != 1 {
		t.Fatalf("after a Wait: state %d, %d pending; want a poll pending", d.slots[old].state, d.pending)
	}
	if err := d.Deregister(a); err != nil {
		t.Fatal(err)
	}
	if err := d.Register(c, 2, driver.Read); err != nil {
		t.Fatal(err)
	}
	if d.index[c] == old {
		t.Fatalf("slot %d, whose poll is still pending, was given to a new registration", old)
	}
	if d.slots[old].state != cancelling {
		t.Fatalf("deregistered slot %d: state %d, want cancelling", old, d.slots[old].state)
	}
	deadline := time.Now().Add(time.Second)
	for d.slots[old].state == cancelling && time.Now().Before(deadline) {
		d.Wait(ev, 10*time.Millisecond)
	}
	if d.slots[old] != (slot{}) || len(d.free) != 1 || d.free[0] != old || d.pending != 1 {
		t.Fatalf("after the cancel completed: slot %+v, free %v, %d pending; want slot %d free and the new poll pending", d.slots[old], d.free, d.pending, old)
	}
}

// Deregister with a poll pending returns once the poll has completed, the
// socket no longer held (its port free, should it be a listener), and
// keeps what else it dequeued meanwhile for the next Wait: here a wakeup,
// queued before the cancel's completion.
func TestDeregisterSettlesAPendingPoll(t *testing.T) {
	d := newDriver(t)
	a, _ := pair(t)
	ev := armed(t, d, a, 1)
	old := d.index[a]
	if err := d.Wakeup(); err != nil {
		t.Fatal(err)
	}
	if err := d.Deregister(a); err != nil {
		t.Fatal(err)
	}
	if d.slots[old] != (slot{}) || d.pending != 0 || len(d.early) != 1 {
		t.Fatalf("after Deregister: slot %+v, %d pending, %d kept; want slot %d free, none pending, the wakeup kept", d.slots[old], d.pending, len(d.early), old)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if n, err := d.Wait(ev, -1); n != 0 || err != nil {
			t.Errorf("Wait after Deregister = %d, %v; want the kept wakeup to end it", n, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		d.Wakeup()
		<-done
		t.Fatal("the wakeup Deregister dequeued was lost: Wait blocked")
	}
}

// One AFD handle per groupSize sockets, closed again when unused, down to
// the one New opened; Close waits for every pending poll.
func TestHelpersFollowTheSockets(t *testing.T) {
	d := newDriver(t)
	var fds []int
	for range groupSize + 1 {
		a, _ := pair(t)
		if err := d.Register(a, driver.Token(a), driver.Read); err != nil {
			t.Fatal(err)
		}
		fds = append(fds, a)
	}
	if d.open != 2 {
		t.Fatalf("%d sockets: %d AFD handles open, want 2", len(fds), d.open)
	}
	ev := make([]driver.Event, 8)
	d.Wait(ev, 0) // arms every one
	if d.pending != len(fds) {
		t.Fatalf("%d polls pending, want %d", d.pending, len(fds))
	}
	for _, fd := range fds[:groupSize] {
		if err := d.Deregister(fd); err != nil {
			t.Fatal(err)
		}
	}
	if d.open != 1 {
		t.Fatalf("%d AFD handles open after the first %d sockets went, want 1", d.open, groupSize)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if d.pending != 0 {
		t.Fatalf("Close returned with %d polls pending", d.pending)
	}
}

// A Modify that widens the interest of a pending poll cancels it; the Wait
// that dequeues the cancellation arms the new poll and reports what is
// ready now, instead of returning empty-handed or blocking on: the socket
// was writable when Wait was called.
func TestModifiedPollIsArmedInTheSameWait(t *testing.T) {
	d := newDriver(t)
	a, _ := pair(t)
	ev := armed(t, d, a, 1)
	if err := d.Modify(a, 2, driver.Read|driver.Write); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := d.Wait(ev, 2*time.Second)
	if err != nil || n != 1 || ev[0] != (driver.Event{Token: 2, Ready: driver.Write}) {
		t.Fatalf("Wait after Modify = %d, %v, %v after %v; want token 2 writable", n, err, ev[:n], time.Since(start))
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Wait took %v to report a socket writable all along", took)
	}
}

// Registrations made and dropped between two Waits (a loop that never
// waits) do not pile up in the queue of polls to arm: a slot reused while
// queued is queued once.
func TestQueueStaysShortWithoutWaits(t *testing.T) {
	d := newDriver(t)
	a, _ := pair(t)
	for range 1000 {
		if err := d.Register(a, 1, driver.Read); err != nil {
			t.Fatal(err)
		}
		if err := d.Deregister(a); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.queue) > 1 {
		t.Fatalf("%d entries queued after 1000 Register+Deregister of one socket, want at most 1", len(d.queue))
	}
}

// Sockets an arm found gone wait on d.gone to be reported Closed. One
// left there by a full events slice, then deregistered and its slot
// handed to a new registration, must not have the new socket reported
// Closed (the free list hands the last slot freed out first).
func TestGoneSlotReusedIsNotReportedClosed(t *testing.T) {
	d := newDriver(t)
	x, xp, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	y, yp, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { winsock.Close(xp); winsock.Close(yp) })
	c, _ := pair(t)
	a, b := int(x), int(y)
	for i, fd := range []int{a, b} {
		if err := d.Register(fd, driver.Token(i+1), driver.Write); err != nil {
			t.Fatal(err)
		}
	}
	ev := make([]driver.Event, 8)
	deadline := time.Now().Add(2 * time.Second)
	for seen := 0; seen != 3 && time.Now().Before(deadline); {
		n, _ := d.Wait(ev, 100*time.Millisecond)
		for _, e := range ev[:n] {
			seen |= 1 << (e.Token - 1)
		}
	}
	// Both were reported, so neither has a poll pending when closed: the
	// next arm finds them gone.
	for _, s := range d.slots {
		if s.live && s.state != idle {
			t.Fatalf("slot of fd %d: state %d after its socket was reported; want idle, so that the arm finds it gone", s.fd, s.state)
		}
	}
	winsock.Close(x)
	winsock.Close(y)
	if n, err := d.Wait(ev[:1], 0); err != nil || n != 1 || !ev[0].Closed {
		t.Fatalf("Wait with room for one = %d, %v, %v; want one socket reported Closed", n, err, ev[:n])
	}
	left := b
	if ev[0].Token == 2 {
		left = a
	}
	if len(d.gone) != 1 {
		t.Fatalf("d.gone = %v, want the other socket still to report", d.gone)
	}
	if err := d.Deregister(left); err != nil {
		t.Fatal(err)
	}
	if err := d.Register(c, 3, driver.Write); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		n, err := d.Wait(ev, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ev[:n] {
			if e.Token == 3 && e.Closed {
				t.Fatalf("the new registration of a reused slot was reported Closed: %+v", e)
			}
			if e.Token == 3 {
				return
			}
		}
	}
	t.Fatal("the new registration was not reported writable")
}
