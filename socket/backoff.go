//go:build unix || windows

package socket

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Back-off of a listener out of descriptors: first and longest wait.
const (
	backoffMin = 5 * time.Millisecond
	backoffMax = time.Second
)

// The sleep of an Accept in back-off is the loop's: a timer (Delay) ends
// it, and meanwhile a fiber suspends and any other goroutine waits in
// RunUntil, so that the loop runs on. Readiness cannot stand in for the
// timer (the connection that accept(2) could not take keeps the socket
// readable), so core.FD's waits do not see this sleep; Close and a new
// deadline end it through the listener, where they find it.

// backoffState is a listener's back-off: when the next accept(2) may be
// made, and the sleep of the Accept that waits for it.
type backoffState struct {
	until atomic.Int64 // no accept(2) before this (nowMono); 0: none
	len   int64        // the next back-off; the read lock guards it

	mu       sync.Mutex
	nap      *nap      // the Accept asleep, if one is
	deadline time.Time // Accept's, as SetDeadline gave it
	closing  bool      // Close has begun: no sleep starts
}

// nap is one sleep of an Accept: it ends when its timer fires or when
// wake is called, whichever comes first; the Accept then looks again at
// what it waits for.
type nap struct {
	l  *core.Loop
	id core.CallbackID  // its timer; 0 until set
	s  *core.Suspension // the fiber asleep; nil for another goroutine
	ch chan struct{}    // closed when the sleep of another goroutine ends

	over bool // the loop's: ended
}

// end ends n, on the loop; a second end does nothing.
func (n *nap) end() {
	if n.over {
		return
	}
	n.over = true
	n.l.Cancel(n.id)
	if n.s != nil {
		n.s.Resume(nil)
	} else {
		close(n.ch)
	}
}

// wake ends n from any goroutine.
func (n *nap) wake() {
	if n.l.InFiber() {
		n.end()
		return
	}
	_ = n.l.Post(n.end) // a closed loop has ended the sleep itself
}

// testHookBackoff, when set, runs on the loop once an Accept sleeps out
// a back-off: Close and SetDeadline find it from then on.
var testHookBackoff func()

// backOff sleeps while the listener backs off; the caller holds the read
// lock. It returns nil if there is no back-off, errAgainNow after a sleep
// (the caller looks again at all it waits for: the back-off may be over),
// or why the Accept ends: Close, the deadline, the loop.
func (fd *netFD) backOff() error {
	b := &fd.ln.backoff
	left := time.Duration(b.until.Load() - nowMono())
	if left <= 0 {
		return nil
	}
	l := fd.pd.Loop()
	n := &nap{l: l}
	if l.InFiber() {
		n.s = l.Suspension()
	} else {
		n.ch = make(chan struct{})
	}
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return fd.closedErr()
	}
	if !b.deadline.IsZero() {
		d := time.Until(b.deadline)
		if d <= 0 {
			b.mu.Unlock()
			return os.ErrDeadlineExceeded
		}
		left = min(left, d)
	}
	b.nap = n
	b.mu.Unlock()
	start := func() {
		if n.over {
			return // woken before it began
		}
		n.id = l.Delay(left, func(core.CallbackID) { n.end() })
		if testHookBackoff != nil {
			testHookBackoff()
		}
	}
	var err error
	if n.s != nil {
		start()
		_, err = n.s.Suspend()
	} else if err = l.Post(start); err == nil {
		if err = l.RunUntil(n.ch); err != nil {
			_ = l.Post(n.end) // given up: its timer goes
		}
	}
	b.mu.Lock()
	if b.nap == n {
		b.nap = nil
	}
	b.mu.Unlock()
	if err != nil {
		return fd.ioErr(err)
	}
	return errAgainNow
}

// wakeBackoff ends the sleep of an Accept in back-off, if there is one:
// it looks again at what it waits for. With closing, no sleep starts
// after it.
func (fd *netFD) wakeBackoff(closing bool) {
	b := &fd.ln.backoff
	b.mu.Lock()
	n := b.nap
	b.closing = b.closing || closing
	b.mu.Unlock()
	if n != nil {
		n.wake()
	}
}

// backoffDeadline keeps Accept's deadline t for its sleep, and wakes it.
func (fd *netFD) backoffDeadline(t time.Time) {
	b := &fd.ln.backoff
	b.mu.Lock()
	b.deadline = t
	b.mu.Unlock()
	fd.wakeBackoff(false)
}

// failedAccept backs off after an accept(2) that left the connection
// queued for want of descriptors or memory: accepting again at once would
// fail again, so the next try waits, longer each time.
func (fd *netFD) failedAccept() {
	b := &fd.ln.backoff
	b.len = min(max(2*b.len, int64(backoffMin)), int64(backoffMax))
	b.until.Store(nowMono() + b.len)
}

// acceptedOne ends the back-off.
func (fd *netFD) acceptedOne() {
	b := &fd.ln.backoff
	b.until.Store(0)
	b.len = 0
}
