//go:build unix || windows

package conformance

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// dcFds tracks the fds a driver case opens, so that each is closed exactly
// once: a second close could close an fd that a later open reused.
type dcFds struct {
	t    testing.TB
	open map[int]bool
}

func dcNewFds(t testing.TB) *dcFds {
	f := &dcFds{t: t, open: make(map[int]bool)}
	t.Cleanup(f.closeAll)
	return f
}

func (f *dcFds) close(fd int) {
	f.t.Helper()
	if !f.open[fd] {
		f.t.Fatalf("fd %d closed twice by the case", fd)
	}
	delete(f.open, fd)
	if err := rvClose(fd); err != nil {
		f.t.Errorf("close(%d): %v", fd, err)
	}
}

// closeAndReuse closes fd and makes its number name a new connected socket
// (faultCloseAndReuse), and returns that socket's peer; both are the
// case's to close. When another object took the number first (on Windows,
// a thread the runtime started meanwhile), fd is closed and the error
// matches errNumberTaken: the caller may try again with a new pair
// (faultReuseTries).
func (f *dcFds) closeAndReuse(fd int) (peer int, err error) {
	f.t.Helper()
	if !f.open[fd] {
		f.t.Fatalf("fd %d reused after the case closed it", fd)
	}
	delete(f.open, fd)
	peer, err = faultCloseAndReuse(fd)
	if errors.Is(err, errNumberTaken) {
		return -1, err
	}
	if err != nil {
		f.t.Fatalf("close fd %d and reuse its number: %v", fd, err)
	}
	f.open[fd], f.open[peer] = true, true
	return peer, nil
}

func (f *dcFds) closeAll() {
	for fd := range f.open {
		rvClose(fd)
	}
	clear(f.open)
}

// dcEvents waits (bounded) and returns the events of one Wait.
func dcEvents(t *testing.T, d core.Driver, timeout time.Duration) []core.Event {
	t.Helper()
	ev := make([]core.Event, 64)
	r := dcMust(t, d, ev, timeout)
	return ev[:r.n]
}

// ReadinessLag is implemented by a driver whose kernel reports readiness
// some time after the fact, and says how long after at most: the AFD
// driver under Wine, whose server hands a poll's result to the thread
// that submitted it, which takes that thread's next chance to run. The
// cases that make fds ready and then expect one Wait to report them all
// (the contract's "every fd ready when Wait is called is reported") then
// accept what the Waits of that long report; every other driver is held
// to the one Wait.
type ReadinessLag interface {
	ReadinessLag() time.Duration
}

func dcLag(d core.Driver) time.Duration {
	if l, ok := d.(ReadinessLag); ok {
		return l.ReadinessLag()
	}
	return 0
}

// dcEventsOfReady returns what one Wait(timeout) reports for fds made
// ready before it, with the tokens the following Waits of the driver's
// ReadinessLag add, until every token of want has come.
func dcEventsOfReady(t *testing.T, d core.Driver, timeout time.Duration, want ...core.Token) []core.Event {
	t.Helper()
	evs := dcEvents(t, d, timeout)
	lag := dcLag(d)
	for deadline := time.Now().Add(lag); lag > 0 && !dcHasAll(evs, want); {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		for _, e := range dcEvents(t, d, left) {
			if !dcHasToken(evs, e.Token) { // level-triggered: again
				evs = append(evs, e)
			}
		}
	}
	return evs
}

func dcHasAll(evs []core.Event, want []core.Token) bool {
	for _, tok := range want {
		if !dcHasToken(evs, tok) {
			return false
		}
	}
	return true
}

// dcExpect waits until tok is reported (Wait may return (0, nil) early),
// and checks that it comes with exactly the readiness want.
func dcExpect(t *testing.T, d core.Driver, tok core.Token, want core.Interest) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range dcEvents(t, d, time.Second) {
			if e.Token != tok {
				continue
			}
			if e.Closed {
				t.Fatalf("token %#x reported Closed, want Ready %v", tok, want)
			}
			if e.Ready != want {
				t.Fatalf("token %#x reported Ready %v, want %v", tok, e.Ready, want)
			}
			return
		}
	}
	t.Fatalf("token %#x was not reported Ready %v within 2s", tok, want)
}

// dcExpectNow checks that a single Wait reports tok with exactly want, as a
// level-triggered driver must while the fd stays ready.
func dcExpectNow(t *testing.T, d core.Driver, tok core.Token, want core.Interest, timeout time.Duration) {
	t.Helper()
	evs := dcEvents(t, d, timeout)
	for _, e := range evs {
		if e.Token == tok && !e.Closed && e.Ready == want {
			return
		}
	}
	t.Fatalf("Wait(%v) reported %v, want token %#x with Ready %v", timeout, evs, tok, want)
}

// dcExpectNone waits for about dur and fails on any event.
func dcExpectNone(t *testing.T, d core.Driver, dur time.Duration) {
	t.Helper()
	deadline := time.Now().Add(dur)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		if evs := dcEvents(t, d, left); len(evs) > 0 {
			t.Fatalf("Wait reported %v, want nothing", evs)
		}
	}
}

// dcMallocs counts the heap allocations fn makes (of the whole process, as
// testing.AllocsPerRun does).
func dcMallocs(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
