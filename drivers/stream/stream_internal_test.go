//go:build unix

package stream

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

func TestPollTimeoutRoundsUpAndCaps(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want int
	}{
		{-time.Hour, -1},
		{-1, -1},
		{0, 0},
		{1, 1}, // never down to a busy poll
		{time.Millisecond - 1, 1},
		{time.Millisecond, 1},
		{time.Millisecond + 1, 2},
		{25*time.Millisecond + 500*time.Microsecond, 26},
		{maxWaitMs * time.Millisecond, maxWaitMs},
		{1<<63 - 1, maxWaitMs},
	} {
		if got := pollTimeout(c.in); got != c.want {
			t.Errorf("pollTimeout(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestReadinessIsWithinInterest(t *testing.T) {
	rw := core.Read | core.Write
	for _, c := range []struct {
		rev  uint32
		in   core.Interest
		want core.Interest
	}{
		{unix.POLLIN, core.Read, core.Read},
		{unix.POLLIN, core.Write, 0},
		{unix.POLLOUT, rw, core.Write},
		{unix.POLLIN | unix.POLLOUT, rw, rw},
		{unix.POLLHUP, core.Read, core.Read},
		{unix.POLLHUP, core.Write, core.Write},
		{unix.POLLERR, rw, rw},
		{unix.POLLHUP, 0, 0},
	} {
		if got := readiness(c.rev, c.in); got != c.want {
			t.Errorf("readiness(%#x, %v) = %v, want %v", c.rev, c.in, got, c.want)
		}
	}
}

// An fd with interest 0 is handed to poll as -1, and gets its number back
// when it is watched again.
func TestInterestZeroIsLeftOutOfPoll(t *testing.T) {
	d := newDriver(t)
	r, _ := pipe(t)
	if err := d.Register(r, 1, 0); err != nil {
		t.Fatal(err)
	}
	p := &d.pfds[d.index[r]]
	if p.Fd != -1 || p.Events != 0 {
		t.Fatalf("interest 0: pollfd %+v, want fd -1 and no events", *p)
	}
	if err := d.Modify(r, 1, core.Read); err != nil {
		t.Fatal(err)
	}
	if p.Fd != int32(r) || p.Events != unix.POLLIN {
		t.Fatalf("interest r: pollfd %+v, want fd %d and POLLIN", *p, r)
	}
}

// Swap-removal keeps the fd index, the registrations and the pollfd array
// in step through any order of Register, Modify and Deregister.
func TestIndexSurvivesChurn(t *testing.T) {
	d := newDriver(t)
	var fds []int
	for range 100 {
		r, w := pipe(t)
		fds = append(fds, r, w)
	}
	registered := make(map[int]core.Interest)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		fd := fds[rng.IntN(len(fds))]
		in := core.Interest(rng.IntN(4))
		_, ok := registered[fd]
		switch {
		case !ok:
			if err := d.Register(fd, core.Token(fd), in); err != nil {
				t.Fatal(err)
			}
			registered[fd] = in
		case rng.IntN(2) == 0:
			if err := d.Modify(fd, core.Token(fd), in); err != nil {
				t.Fatal(err)
			}
			registered[fd] = in
		default:
			if err := d.Deregister(fd); err != nil {
				t.Fatal(err)
			}
			delete(registered, fd)
		}
	}
	if len(d.index) != len(registered) || len(d.regs) != len(registered)+1 || len(d.pfds) != len(d.regs) {
		t.Fatalf("%d registered, index %d, regs %d, pfds %d", len(registered), len(d.index), len(d.regs), len(d.pfds))
	}
	for fd, in := range registered {
		i := d.index[fd]
		r, p := d.regs[i], d.pfds[i]
		if r.fd != fd || r.tok != core.Token(fd) || r.in != in {
			t.Fatalf("slot %d for fd %d holds %+v", i, fd, r)
		}
		if want := int32(fd); in == 0 && p.Fd != -1 || in != 0 && p.Fd != want {
			t.Fatalf("slot %d for fd %d with interest %v polls fd %d", i, fd, in, p.Fd)
		}
	}
}

// When more fds were closed than the caller's slice holds, the ones not yet
// reported stay registered and come in the next Wait; none is lost.
func TestClosedFdsBeyondTheSliceComeNext(t *testing.T) {
	d := newDriver(t)
	var closed []int
	for i := range 3 {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		r := p[0]
		unix.Close(p[1])
		if err := d.Register(r, core.Token(i), core.Read); err != nil {
			t.Fatal(err)
		}
		closed = append(closed, r)
	}
	for _, fd := range closed {
		unix.Close(fd)
	}
	seen := make(map[core.Token]bool)
	ev := make([]core.Event, 1)
	for range 3 {
		n, err := d.Wait(ev, time.Second)
		if err != nil || n != 1 || !ev[0].Closed {
			t.Fatalf("Wait = %d, %v, %+v; want one Closed event", n, err, ev[0])
		}
		seen[ev[0].Token] = true
	}
	if len(seen) != 3 || len(d.index) != 0 || len(d.pfds) != 1 {
		t.Fatalf("reported %v; %d fds still indexed, %d pollfds", seen, len(d.index), len(d.pfds))
	}
}

// Register refuses an fd that is not open rather than waiting for Wait to
// find out.
func TestRegisterOfClosedFdIsEBADF(t *testing.T) {
	d := newDriver(t)
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	unix.Close(p[0])
	unix.Close(p[1])
	if err := d.Register(p[0], 1, core.Read); !errors.Is(err, unix.EBADF) {
		t.Fatalf("Register of a closed fd: %v, want EBADF", err)
	}
	if len(d.index) != 0 {
		t.Fatal("the refused fd was indexed")
	}
}

// Something else in the process closing the driver's own waker fd makes
// Wait fail instead of spinning on POLLNVAL.
func TestWakerFdClosedBehindItsBackIsAnError(t *testing.T) {
	d := newDriver(t)
	fd := d.wake.Fd()
	unix.Close(fd)
	_, err := d.Wait(make([]core.Event, 4), time.Second)
	if !errors.Is(err, unix.EBADF) {
		t.Errorf("Wait with the waker fd closed: %v, want EBADF", err)
	}
	// Put a file back at the number, for Close to close rather than a
	// stranger: open takes the lowest free number, F_DUPFD the lowest free
	// from fd up.
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil || null == fd {
		return
	}
	defer unix.Close(null)
	if back, err := unix.FcntlInt(uintptr(null), unix.F_DUPFD, fd); err != nil || back != fd {
		t.Fatalf("could not put a file back at fd %d: got %d, %v", fd, back, err)
	}
}

func newDriver(t *testing.T) *Driver {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func pipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}
