//go:build unix || windows

package conformance

import (
	"errors"
	"io/fs"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

func driverFdWaitCases() []DriverCase {
	return []DriverCase{
		// "an fd the kernel reports closed (POLLNVAL, or EBADF from a
		// control call) is reported once as an Event with Closed set and
		// forgotten. Deregister of an fd the kernel has already dropped
		// (closed, or closed and its number reused) succeeds. Whatever the
		// kernel keeps of a closed fd, the driver must never report it
		// ready forever (a spin)."
		{"ClosedFdNeverSpinsAndIsReportedAtMostOnce", dcClosedFd},
		{"DeregisterOfClosedFdSucceeds", dcDeregisterClosedFd},
		{"ReusedNumberRegistersTheNewFile", dcReusedNumber},
		// "it hands back, in Event.Token, the token of the registration."
		{"EventsCarryTheRegisteredToken", dcTokens},
		// "timeout < 0 blocks until an event or a Wakeup."
		{"WaitForeverReturnsOnEvent", dcWaitForeverReturnsOnEvent},
		// "Wait fills events (owned by the caller; the driver keeps no
		// reference ...) and returns how many it filled."
		{"WaitFillsAtMostLenEventsAndTheRestComeNext", dcWaitFillsAtMostLen},
		// "... and must not allocate."
		{"WaitDoesNotAllocate", dcWaitDoesNotAllocate},
		// DESIGN section 8: no FD_SETSIZE ceiling (fds above 1024:
		// dcPlatformFdCases).
		{"TwoThousandSocketpairs", dcTwoThousandSocketpairs},
	}
}

func dcClosedFd(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcWrite(t, b, "x") // ready too, so that a driver that misses the close reports Ready
	dcRegister(t, d, a, 1, core.Read|core.Write)
	f.close(a)
	if dcClosedAtMostOnce(t, d, 1, a) {
		if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Deregister of fd %d after its Closed event: %v, want an error matching fs.ErrNotExist (forgotten)", a, err)
		}
		return
	}
	// The kernel dropped it silently (epoll, kqueue): the core finds it and
	// deregisters it.
	if err := d.Deregister(a); err != nil {
		t.Fatalf("Deregister of fd %d closed while registered: %v, want nil", a, err)
	}
	dcExpectWaits(t, d, "after Deregister of a closed fd", 50*time.Millisecond)
}

func dcDeregisterClosedFd(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, _ := f.pair()
	dcRegister(t, d, a, 1, core.Read)
	f.close(a)
	if err := d.Deregister(a); err != nil {
		t.Fatalf("Deregister of fd %d closed while registered (no Wait in between): %v, want nil", a, err)
	}
	dcExpectNone(t, d, 20*time.Millisecond)
}

// dcReusedNumber: the file behind a registered number is closed and the
// number taken by a new file at once (accept and socket take the lowest
// free number). The core then deregisters the number and registers it
// again; the new registration must reach the kernel, report the new file
// under its new token, and nothing of the old file may come back.
func dcReusedNumber(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	var a, e int
	for try := 1; ; try++ {
		var b int
		a, b = f.pair()
		dcWrite(t, b, "x")
		dcRegister(t, d, a, 1, core.Read)
		dcExpectNow(t, d, 1, core.Read, time.Second)
		var err error
		e, err = f.closeAndReuse(a)
		if derr := d.Deregister(a); derr != nil {
			t.Fatalf("Deregister of reused fd %d: %v, want nil", a, derr)
		}
		if err == nil {
			break
		}
		if try == faultReuseTries {
			t.Fatalf("in %d attempts, the closed fd's number was taken by another object before the new socket every time; the last: %v", try, err)
		}
		t.Logf("attempt without reuse: %v", err)
	}
	dcRegister(t, d, a, 2, core.Read)
	dcExpectWaits(t, d, "the new file, before anything was written to it", 30*time.Millisecond)
	dcWrite(t, e, "y")
	for _, ev := range dcEvents(t, d, time.Second) {
		if ev.Token == 1 {
			t.Fatalf("an event for the old registration of fd %d after it was deregistered: %+v", a, ev)
		}
	}
	dcExpectNow(t, d, 2, core.Read, time.Second)
}

// dcClosedAtMostOnce waits a little for tok, whose fd was closed while
// registered: it may be reported once with Closed set (the kernel said so),
// never as ready after that and never twice; a driver whose kernel drops it
// silently reports nothing, and Wait must then block rather than spin.
func dcClosedAtMostOnce(t *testing.T, d core.Driver, tok core.Token, fd int) (reported bool) {
	t.Helper()
	closed, spins := 0, 0
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		start := time.Now()
		evs := dcEvents(t, d, 20*time.Millisecond)
		for _, e := range evs {
			if e.Token != tok {
				continue
			}
			if e.Closed {
				closed++
				continue
			}
			if closed > 0 {
				t.Fatalf("fd %d reported Ready %v after its Closed event", fd, e.Ready)
			}
		}
		if len(evs) > 0 && time.Since(start) < time.Millisecond {
			spins++
		}
	}
	if closed > 1 {
		t.Fatalf("fd %d reported Closed %d times", fd, closed)
	}
	if spins > 100 {
		t.Fatalf("fd %d, closed while registered, made Wait return at once %d times in 200 ms (a spin)", fd, spins)
	}
	return closed == 1
}

func dcTokens(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	toks := []core.Token{0, math.MaxUint64, 1<<63 | 42, 7}
	for _, tok := range toks {
		a, b := f.pair()
		dcWrite(t, b, "x")
		dcRegister(t, d, a, tok, core.Read)
	}
	evs := dcEvents(t, d, time.Second)
	seen := make(map[core.Token]int)
	for _, e := range evs {
		seen[e.Token]++
	}
	for _, tok := range toks {
		if seen[tok] != 1 {
			t.Errorf("token %#x reported %d times in one Wait, want once", tok, seen[tok])
		}
	}
	if len(evs) != len(toks) {
		t.Errorf("Wait reported %v, want exactly the tokens %#x", evs, toks)
	}
}

func dcWaitForeverReturnsOnEvent(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcRegister(t, d, a, 1, core.Read)
	const after = 30 * time.Millisecond
	var wg sync.WaitGroup
	defer wg.Wait()
	wrote := make(chan time.Time, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(after) // most likely into the Wait; if not, the event waits for it
		at := time.Now()
		if err := rvWrite(b, []byte("x")); err != nil {
			t.Errorf("write: %v", err)
		}
		wrote <- at
	}()
	start := time.Now()
	ev := make([]core.Event, 8)
	// (0, nil) is allowed early, so wait again until the event comes; the
	// writer may be late on a loaded machine, which only makes the Wait
	// longer. dcHang past the write is a hang guard.
	for time.Since(start) < after+dcLimit {
		r := dcMust(t, d, ev, -1)
		if dcHas(ev[:r.n], 1, core.Read) {
			if lag := time.Since(<-wrote); lag > dcHang {
				t.Errorf("Wait(-1) returned %v after a write", lag)
			}
			return
		}
	}
	t.Fatalf("Wait(-1) did not report the fd made readable after %v", after)
}

func dcWaitFillsAtMostLen(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	const ready, room = 5, 2
	for i := range ready {
		a, b := f.pair()
		dcWrite(t, b, "x")
		dcRegister(t, d, a, core.Token(100+i), core.Read)
	}
	// The slice has room for 2 but capacity for 8: what lies past its
	// length is not the driver's to write.
	const sentinel = core.Token(0xdead)
	backing := make([]core.Event, 8)
	reset := func() {
		for i := range backing {
			backing[i] = core.Event{Token: sentinel}
		}
	}
	reset()
	seen := make(map[core.Token]bool)
	// Level-triggered, all stay ready: the ones left out come in the
	// following Waits, not never.
	for i := 0; i < (ready+room-1)/room+1 && len(seen) < ready; i++ {
		r := dcMust(t, d, backing[:room], time.Second)
		for _, e := range backing[:r.n] {
			seen[e.Token] = true
		}
		for j := room; j < len(backing); j++ {
			if backing[j].Token != sentinel {
				t.Fatalf("Wait given a slice of length %d wrote element %d", room, j)
			}
		}
	}
	if len(seen) != ready {
		t.Errorf("%d Waits with room for %d reported tokens %v of %d ready fds", (ready+room-1)/room+1, room, seen, ready)
	}
	// The driver keeps no reference to a slice it was given.
	reset()
	other := make([]core.Event, 8)
	for range 3 {
		dcMust(t, d, other, time.Second)
	}
	for j := range backing {
		if backing[j].Token != sentinel {
			t.Fatalf("a Wait given another slice wrote element %d of an earlier one", j)
		}
	}
}

func dcWaitDoesNotAllocate(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	var fds []int
	for i := range 3 {
		a, b := f.pair()
		dcWrite(t, b, "x")
		dcRegister(t, d, a, core.Token(i+1), core.Read|core.Write)
		fds = append(fds, a)
	}
	ev := make([]core.Event, 8)
	// Called directly, not through dcWait: its goroutine would allocate.
	d.Wait(ev, 0)
	if n := testing.AllocsPerRun(100, func() { d.Wait(ev, 0) }); n != 0 {
		t.Errorf("Wait(0) with ready fds allocates %v times per call", n)
	}
	if n := testing.AllocsPerRun(20, func() { d.Wait(ev[:1], 0) }); n != 0 {
		t.Errorf("Wait(0) with more ready fds than room allocates %v times per call", n)
	}
	for i, fd := range fds {
		if err := d.Modify(fd, core.Token(i+1), 0); err != nil {
			t.Fatalf("Modify: %v", err)
		}
	}
	if n := testing.AllocsPerRun(10, func() { d.Wait(ev, time.Millisecond) }); n != 0 {
		t.Errorf("Wait(1ms) timing out allocates %v times per call", n)
	}
	// Wakeup is allowed to allocate; the Wait that consumes it is not. The
	// count is the process's (whatever else runs, the runtime included, is
	// in it), so the least of five tries counts: a Wait that allocates
	// does so in every one of them.
	least := uint64(1 << 63)
	for range 5 {
		var waits uint64
		for range 10 {
			if err := d.Wakeup(); err != nil {
				t.Fatalf("Wakeup: %v", err)
			}
			waits += dcMallocs(func() { d.Wait(ev, time.Second) })
		}
		least = min(least, waits)
	}
	if least != 0 {
		t.Errorf("Wait woken by Wakeup allocates: at least %d allocations in 10 calls, in each of 5 tries", least)
	}
}

func dcTwoThousandSocketpairs(t *testing.T, d core.Driver) {
	const pairs = 2000
	dcNeedFds(t, 2*pairs+1024)
	f := dcNewFds(t)
	watched := make([]int, pairs)
	peers := make([]int, pairs)
	for i := range pairs {
		watched[i], peers[i] = f.pair()
		dcRegister(t, d, watched[i], core.Token(i), core.Read)
	}
	ready := func(want ...int) {
		t.Helper()
		var toks []core.Token
		for _, i := range want {
			dcWrite(t, peers[i], "x")
			toks = append(toks, core.Token(i))
		}
		evs := dcEventsOfReady(t, d, time.Second, toks...)
		if len(evs) != len(want) {
			t.Fatalf("Wait reported %v, want exactly the tokens %v", evs, want)
		}
		for _, i := range want {
			if !dcHas(evs, core.Token(i), core.Read) {
				t.Fatalf("Wait reported %v, want the tokens %v", evs, want)
			}
			dcDrain(t, watched[i])
		}
	}
	ready(1234)
	ready(0, pairs-1)
	// Deregister every even one, then the odd ones still report under
	// their own tokens and the even ones never.
	for i := 0; i < pairs; i += 2 {
		dcDeregister(t, d, watched[i])
	}
	dcWrite(t, peers[pairs-2], "x")
	ready(1, 999, pairs-1)
	dcDrain(t, watched[pairs-2])
	for i := 1; i < pairs; i += 2 {
		dcDeregister(t, d, watched[i])
	}
	dcExpectNone(t, d, 20*time.Millisecond)
}
