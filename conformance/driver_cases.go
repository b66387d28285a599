package conformance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// driverContractCases pins the core.Driver contract (its doc comment in
// core/driver.go), one case per sentence, on the raw driver. The cases that
// need file descriptors are in the unix files; these need none.
func driverContractCases() []DriverCase {
	return append([]DriverCase{
		// "0 polls without blocking."
		{"WaitZeroReturnsAtOnce", dcWaitZeroReturnsAtOnce},
		// "> 0 blocks at most that long, rounded up to the driver's resolution."
		{"WaitTimeoutIsHonoured", dcWaitTimeoutIsHonoured},
		// "... and never down to zero."
		{"WaitTimeoutBelowResolutionStillWaits", dcWaitTimeoutBelowResolutionStillWaits},
		// "Wakeup makes the current or the next Wait return."
		{"WakeupBeforeWaitMakesNextWaitReturn", dcWakeupBeforeWaitMakesNextWaitReturn},
		{"WakeupFromAnotherGoroutineWhileWaitBlocks", dcWakeupWhileWaitBlocks},
		// "wakeups coalesce, so a thousand calls cost about one."
		{"WakeupsCoalesce", dcWakeupsCoalesce},
		// "Wakeup may be called from any goroutine, at any moment."
		{"WakeupFromManyGoroutinesIsSafeAndNotLost", dcWakeupFromManyGoroutines},
		// "it never blocks."
		{"WakeupNeverBlocks", dcWakeupNeverBlocks},
		// "... and concurrently with Close."
		{"WakeupConcurrentWithCloseNeverPanics", dcWakeupConcurrentWithClose},
		// "afterwards every method, Wakeup included, returns an error
		// matching ErrClosed; a second Close is a no-op that returns nil."
		{"CloseThenEveryMethodFailsWithErrClosed", dcCloseThenErrClosed},
	}, driverFdCases()...)
}

// dcLimit is how long past its timeout a Wait may block before the case
// calls it hung.
const dcLimit = 5 * time.Second

// dcHang bounds how late a timed Wait may return, and how long a Wait that
// has something to report (a Wakeup, a ready fd) may take to return it: a
// hang guard, seconds above what a loaded shared machine adds, never a
// measure of speed. What the contract says of how soon a Wait returns is
// checked from below (a timed Wait takes at least its timeout) and by
// whether it returns at all.
const dcHang = 3 * time.Second

type dcResult struct {
	n          int
	err        error
	took       time.Duration
	start, end time.Time // when Wait was called and when it returned
}

// dcWait runs one Wait on its own goroutine, so that a driver that blocks
// past its timeout fails the case instead of hanging the test binary. If
// the Wait hangs, the case fails and Wakeup is tried to get it back, so
// that the goroutine does not outlive the case.
func dcWait(t *testing.T, d core.Driver, events []core.Event, timeout time.Duration) dcResult {
	t.Helper()
	limit := dcLimit
	if timeout > 0 {
		limit += timeout
	}
	done := make(chan dcResult, 1)
	go func() {
		start := time.Now()
		n, err := d.Wait(events, timeout)
		end := time.Now()
		done <- dcResult{n, err, end.Sub(start), start, end}
	}()
	tm := time.NewTimer(limit)
	defer tm.Stop()
	select {
	case r := <-done:
		dcCheckN(t, r, events)
		return r
	case <-tm.C:
	}
	t.Errorf("Wait(%v) still blocked after %v", timeout, limit)
	for range 20 {
		_ = d.Wakeup()
		select {
		case r := <-done:
			return r
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("Wait(%v) did not return even after Wakeup; abandoning its goroutine", timeout)
	return dcResult{}
}

func dcCheckN(t *testing.T, r dcResult, events []core.Event) {
	t.Helper()
	if r.n < 0 || r.n > len(events) {
		t.Fatalf("Wait returned n = %d for a slice of %d events", r.n, len(events))
	}
	if r.err != nil && r.n != 0 {
		t.Errorf("Wait returned n = %d with error %v", r.n, r.err)
	}
}

// dcMust is dcWait that fails the case on an error.
func dcMust(t *testing.T, d core.Driver, events []core.Event, timeout time.Duration) dcResult {
	t.Helper()
	r := dcWait(t, d, events, timeout)
	if r.err != nil {
		t.Fatalf("Wait(%v): %v", timeout, r.err)
	}
	return r
}

// dcMostly runs a timing check several times and requires it to hold in
// most runs: Wait may return (0, nil) early (EINTR, say), and the machines
// are shared, so one run proves nothing; a driver that is wrong is wrong in
// every run.
func dcMostly(t *testing.T, what string, check func() (ok bool, detail string)) {
	t.Helper()
	const runs = 5
	var passed int
	var details []string
	for range runs {
		ok, detail := check()
		if ok {
			passed++
		}
		details = append(details, detail)
	}
	if passed < runs/2+1 {
		t.Errorf("%s held in %d of %d runs: %v", what, passed, runs, details)
	}
}

// dcResolution is the driver's declared resolution, or 0.
func dcResolution(d core.Driver) time.Duration {
	if r, ok := d.(core.WaitResolution); ok {
		return r.Resolution()
	}
	return 0
}

// dcWaitZeroReturnsAtOnce: with nothing registered, a Wait(0) that blocked
// would block for ever; one that returns within dcHang polled.
func dcWaitZeroReturnsAtOnce(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	for range 5 {
		r := dcMust(t, d, ev, 0)
		if r.n != 0 {
			t.Errorf("Wait(0) reported %d events with nothing registered: %v", r.n, ev[:r.n])
		}
		if r.took > dcHang {
			t.Errorf("Wait(0) with nothing ready took %v", r.took)
		}
	}
}

func dcWaitTimeoutIsHonoured(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	res := dcResolution(d)
	// Not a whole number of milliseconds, to catch rounding down.
	const timeout = 25*time.Millisecond + 500*time.Microsecond
	dcMostly(t, fmt.Sprintf("Wait(%v) with nothing ready takes at least that long", timeout), func() (bool, string) {
		r := dcMust(t, d, ev, timeout)
		if r.n != 0 {
			t.Errorf("Wait reported %d events with nothing registered: %v", r.n, ev[:r.n])
		}
		if r.took > timeout+res+dcHang {
			t.Errorf("Wait(%v) took %v (resolution %v)", timeout, r.took, res)
		}
		return r.took >= timeout, fmt.Sprint(r.took)
	})
}

func dcWaitTimeoutBelowResolutionStillWaits(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	res := dcResolution(d)
	for _, timeout := range []time.Duration{time.Nanosecond, res / 2} {
		if timeout <= 0 {
			continue
		}
		// Rounded up to the resolution, so at least that long; a driver
		// that rounds down to zero polls and returns at once.
		least := max(timeout, res)
		dcMostly(t, fmt.Sprintf("Wait(%v) with resolution %v takes at least %v", timeout, res, least), func() (bool, string) {
			r := dcMust(t, d, ev, timeout)
			if r.took > least+dcHang {
				t.Errorf("Wait(%v) took %v", timeout, r.took)
			}
			return r.took >= least, fmt.Sprint(r.took)
		})
	}
}

func dcWakeupBeforeWaitMakesNextWaitReturn(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	// Again and again: each Wait consumes a wakeup and must leave the
	// driver ready for the next one.
	for i := range 3 {
		if err := d.Wakeup(); err != nil {
			t.Fatalf("Wakeup: %v", err)
		}
		r := dcMust(t, d, ev, -1)
		if r.n != 0 {
			t.Errorf("Wait after Wakeup reported %d events with nothing registered", r.n)
		}
		if r.took > dcHang {
			t.Errorf("Wait(-1) after Wakeup %d took %v", i, r.took)
		}
	}
}

// dcWakeupWhileWaitBlocks checks the order it is named for, from the times
// dcWait takes: a run counts only if its Wait(-1) was called before the
// Wakeup and returned after it; it must then return promptly. Wait may
// return (0, nil) early, and a goroutine may be late to start, so a run in
// which Wait returned before the Wakeup, or began after it, proves nothing
// either way; most runs must be of the kind that counts.
func dcWakeupWhileWaitBlocks(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	const after = 50 * time.Millisecond
	dcMostly(t, fmt.Sprintf("a Wakeup made %v into a Wait(-1) found it still waiting and ended it", after), func() (bool, string) {
		woke := make(chan time.Time, 1)
		go func() {
			time.Sleep(after)
			at := time.Now()
			if err := d.Wakeup(); err != nil {
				t.Errorf("Wakeup: %v", err)
			}
			woke <- at
		}()
		r := dcMust(t, d, ev, -1)
		at := <-woke
		switch {
		case r.end.Before(at):
			// Returned early: the Wakeup is left for the next Wait; take it.
			dcMust(t, d, ev, 0)
			return false, fmt.Sprintf("Wait returned %v before the Wakeup", at.Sub(r.end))
		case at.Before(r.start):
			return false, fmt.Sprintf("Wait began %v after the Wakeup", r.start.Sub(at))
		}
		if lag := r.end.Sub(at); lag > dcHang {
			t.Errorf("Wait(-1) returned %v after a Wakeup made while it waited", lag)
		}
		return true, fmt.Sprintf("returned %v after the Wakeup", r.end.Sub(at))
	})
}

// dcWakeupsCoalesce: "wakeups coalesce, so a thousand calls cost about
// one." What Wait can show is that nothing is left over: after a thousand
// Wakeups one Wait returns and the next one waits, run after run. That
// alone cannot tell coalescing from a thorough drain (one read empties an
// eventfd whatever the number of writes, and a drain loop empties a pipe),
// so where the process's fds can be read (Linux: wakeupBacklog) the case
// also looks at what the Wakeups wrote: a driver whose Wakeup writes every
// time grows an eventfd's counter, or a pipe, by a thousand. Elsewhere, and
// for a wakeup without an fd (kqueue's EVFILT_USER), no driver-level
// observation tells the two apart: the unit tests of the shared waker
// (drivers/internal/waker), which every fd driver uses, pin the mechanism.
func dcWakeupsCoalesce(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	const calls = 1000
	const quiet = 50 * time.Millisecond
	dcMostly(t, fmt.Sprintf("after %d Wakeups one Wait(-1) returns and the next Wait(%v) waits", calls, quiet), func() (bool, string) {
		before, probed := wakeupBacklog()
		for i := range calls {
			if err := d.Wakeup(); err != nil {
				t.Fatalf("Wakeup %d: %v", i, err)
			}
		}
		if probed {
			after, _ := wakeupBacklog()
			for fd, n := range after {
				if b, ok := before[fd]; ok && n > b+calls/100 {
					t.Fatalf("%d Wakeups without a Wait added %d to what waits in fd %d: they did not coalesce (about one write for the lot)", calls, n-b, fd)
				}
			}
		}
		r := dcMust(t, d, ev, -1)
		if r.n != 0 {
			t.Errorf("Wait after Wakeups reported %d events with nothing registered", r.n)
		}
		if r.took > dcHang {
			t.Errorf("Wait(-1) after %d Wakeups took %v", calls, r.took)
		}
		r = dcMust(t, d, ev, quiet)
		return r.took >= quiet, fmt.Sprint(r.took)
	})
}

func dcWakeupFromManyGoroutines(t *testing.T, d core.Driver) {
	ev := make([]core.Event, 8)
	const wakers, each = 8, 500
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range wakers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := d.Wakeup(); err != nil {
					t.Errorf("Wakeup: %v", err)
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	deadline := time.Now().Add(dcLimit)
loop:
	for time.Now().Before(deadline) {
		select {
		case <-done:
			break loop
		default:
		}
		dcMust(t, d, ev, 10*time.Millisecond)
	}
	select {
	case <-done:
	case <-time.After(dcLimit):
		t.Fatalf("%d goroutines making %d Wakeups each did not finish", wakers, each)
	}
	// Whatever interleaving the wakers had with Wait, the coalescing state
	// must be left armed: a new Wakeup still makes a blocked Wait return.
	dcMust(t, d, ev, 0)
	if err := d.Wakeup(); err != nil {
		t.Fatalf("Wakeup: %v", err)
	}
	if r := dcMust(t, d, ev, -1); r.took > dcHang {
		t.Errorf("Wait(-1) after a Wakeup took %v", r.took)
	}
}

func dcWakeupNeverBlocks(t *testing.T, d core.Driver) {
	// With nobody waiting, a driver that writes once per Wakeup to a pipe
	// would fill it and block; the limit is far above what 100000
	// coalesced calls cost.
	const calls = 100000
	done := make(chan error, 1)
	go func() {
		for range calls {
			if err := d.Wakeup(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wakeup: %v", err)
		}
	case <-time.After(dcLimit):
		t.Fatalf("%d Wakeups without a Wait did not finish within %v: Wakeup blocks", calls, dcLimit)
	}
	ev := make([]core.Event, 8)
	if r := dcMust(t, d, ev, -1); r.took > dcHang {
		t.Errorf("Wait(-1) after Wakeups took %v", r.took)
	}
}

func dcWakeupConcurrentWithClose(t *testing.T, d core.Driver) {
	const wakers = 4
	var wg sync.WaitGroup
	start := make(chan struct{})
	closed := make(chan struct{})
	for range wakers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("Wakeup concurrent with Close panicked: %v", v)
				}
			}()
			<-start
			for {
				err := d.Wakeup()
				if err != nil && !errors.Is(err, core.ErrClosed) {
					t.Errorf("Wakeup concurrent with Close: %v, want nil or an error matching core.ErrClosed", err)
				}
				select {
				case <-closed:
					// Close has returned: from now on only ErrClosed.
					if err := d.Wakeup(); !errors.Is(err, core.ErrClosed) {
						t.Errorf("Wakeup after Close: %v, want an error matching core.ErrClosed", err)
					}
					return
				default:
				}
			}
		}()
	}
	close(start)
	time.Sleep(5 * time.Millisecond)
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	close(closed)
	wg.Wait()
	dcCheckWakeupAfterClose(t, d)
}

func dcCloseThenErrClosed(t *testing.T, d core.Driver) {
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ev := make([]core.Event, 8)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, core.ErrClosed) {
			t.Errorf("%s after Close: %v, want an error matching core.ErrClosed", what, err)
		}
	}
	// fd 0 is never touched by a closed driver; for an fd it never saw,
	// Modify and Deregister must still say ErrClosed, not ErrNotExist.
	check("Register", d.Register(0, 1, core.Read))
	check("Modify", d.Modify(0, 1, core.Read))
	check("Deregister", d.Deregister(0))
	check("Wait(0)", dcWait(t, d, ev, 0).err)
	check("Wait(-1)", dcWait(t, d, ev, -1).err)
	check("Wait(10ms)", dcWait(t, d, ev, 10*time.Millisecond).err)
	check("Wakeup", d.Wakeup())
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v, want nil (a no-op)", err)
	}
	dcCheckWakeupAfterClose(t, d)
}
