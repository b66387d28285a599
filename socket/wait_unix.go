//go:build unix

package socket

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A direction (read or write) of an fd, and its waiters.
//
// Every wait starts with a system call that said EAGAIN (or a lock that
// was taken, or a back-off): the caller puts a waiter on the direction's
// lists and waits to be woken, then tries again. The lists belong to the
// loop: a fiber touches them directly, any other goroutine through Post.
// A wake means "try again", nothing more: whoever is woken looks at the
// fd's state (closed, deadline, readiness) by itself, so that Close, a
// deadline, readiness and a moved deadline all wake the same way.
//
// The readiness watcher of a direction is made at its first EAGAIN and
// kept for the fd's life: it is referenced while someone waits (a waiting
// call keeps Run going, as any Revolt watcher does) and unreferenced
// otherwise. When it fires it wakes every readiness waiter and stays
// enabled, so the next wait costs no system call; if it fires with nobody
// waiting it is disabled (one spurious wake, then quiet) and enabled again
// at the next EAGAIN. The registration with the driver is kept for the
// fd's life as well (netpoll dups every fd it watches: registering again
// could fail for want of descriptors).
type dir struct {
	fd    *netFD
	write bool

	// Any goroutine.
	deadline atomic.Int64 // mono ns (deadline.go); 0: none
	lock     atomic.Int32 // 1: a call of this direction is in progress
	lockWait atomic.Int32 // callers waiting for the lock
	queued   atomic.Int32 // waiters on the lists: a new deadline needs the loop only then

	// The loop's.
	watch    core.CallbackID
	enabled  bool
	watchRef bool
	timer    core.CallbackID
	timerAt  int64
	timerRef bool
	io       []*waiter // readiness
	other    []*waiter // the lock, a listener's back-off
	ioOne    [1]*waiter
	fiberW   waiter // the readiness waiter of the lock holder when it is a fiber

	onReadyFn   func(core.CallbackID, int)
	onTimerFn   func(core.CallbackID)
	wakeOtherFn func()
}

const (
	waitIO    uint8 = iota // readiness
	waitLock               // the direction's lock
	waitSleep              // a listener's back-off
)

func (d *dir) init(fd *netFD, write bool) {
	d.fd, d.write = fd, write
	d.io = d.ioOne[:0]
	d.onReadyFn = d.onReady
	d.onTimerFn = d.onTimer
	d.wakeOtherFn = d.wakeOther
}

// waiter is one waiting call: a fiber (s) or a goroutine (ch).
type waiter struct {
	s      *core.Suspension
	ch     chan struct{}
	d      *dir
	kind   uint8
	queued bool // the loop's: on a list
}

func newGoroutineWaiter(d *dir, kind uint8) *waiter {
	return &waiter{ch: make(chan struct{}), d: d, kind: kind}
}

// wake runs on the loop: it resumes a fiber, or closes a goroutine's
// channel (once: only the loop closes it).
func (w *waiter) wake() {
	if w.s != nil {
		w.s.Resume(nil)
		return
	}
	select {
	case <-w.ch:
	default:
		close(w.ch)
	}
}

// wait waits until the caller should try again: a fiber of the loop
// suspends, any other goroutine blocks (block). A loop closed meanwhile
// closes the fd.
func (d *dir) wait(kind uint8) error {
	var err error
	if d.fd.l.InFiber() {
		err = d.waitFiber(kind)
	} else {
		err = d.waitGoroutine(kind)
	}
	switch {
	case err == errLoopClosed:
		d.fd.loopGone()
	case err == nil && d.fd.isClosed():
		// Close woke it (or came first): the call ends here rather than
		// trying the descriptor again.
		err = d.fd.closedErr()
	}
	return err
}

func (d *dir) waitFiber(kind uint8) error {
	w := &d.fiberW
	if kind != waitIO || w.queued {
		w = &waiter{} // contention: rare, and it may allocate
	}
	w.kind = kind
	w.s = d.fd.l.Suspension()
	if !d.enqueue(w) {
		return nil
	}
	if _, err := w.s.Suspend(); err != nil {
		// Close unwinds the fiber; the lists go with the loop.
		return errLoopClosed
	}
	return nil
}

func (d *dir) waitGoroutine(kind uint8) error {
	fd := d.fd
	w := newGoroutineWaiter(d, kind)
	if err := fd.l.Post(func() {
		if !d.enqueue(w) {
			w.wake()
		}
	}); err != nil {
		return errLoopClosed
	}
	return block(fd.l, w, false)
}

// enqueue puts w on d's lists, on the loop; false means try again at once
// (closed, the deadline passed, the lock or the back-off is over).
func (d *dir) enqueue(w *waiter) bool {
	fd := d.fd
	fd.touched.Store(true) // before closedBit is read (close)
	// Counted before the deadline is read: SetDeadline stores and then
	// reads the count, so one of the two sees the other.
	d.queued.Add(1)
	if fd.isClosed() || d.expired() || fd.l.IsClosed() {
		d.queued.Add(-1)
		return false
	}
	switch w.kind {
	case waitLock:
		if d.lock.Load() == 0 {
			d.queued.Add(-1)
			return false
		}
		d.other = append(d.other, w)
	case waitSleep:
		if b := fd.backoff.Load(); b == 0 || nowMono() >= b {
			d.queued.Add(-1)
			return false
		}
		d.other = append(d.other, w)
	default:
		d.io = append(d.io, w)
		d.watchOn()
	}
	w.queued = true
	d.armTimer()
	return true
}

// remove takes w off d's lists, on the loop (a goroutine that gave up).
func (d *dir) remove(w *waiter) {
	if !w.queued {
		return
	}
	for _, list := range []*[]*waiter{&d.io, &d.other} {
		for i, x := range *list {
			if x == w {
				*list = slices.Delete(*list, i, i+1)
				w.queued = false
				d.queued.Add(-1)
				d.settle()
				return
			}
		}
	}
}

func (d *dir) watchOn() {
	l := d.fd.l
	switch {
	case d.watch == 0:
		if d.write {
			d.watch = l.OnWritable(d.fd.sysfd, d.onReadyFn)
		} else {
			d.watch = l.OnReadable(d.fd.sysfd, d.onReadyFn)
		}
		d.enabled, d.watchRef = true, true
		return
	case !d.enabled:
		if l.Enable(d.watch) != nil {
			return
		}
		d.enabled = true
	}
	if !d.watchRef {
		_ = l.Reference(d.watch)
		d.watchRef = true
	}
}

func (d *dir) onReady(id core.CallbackID, _ int) {
	if len(d.io) == 0 {
		d.fd.l.Disable(id)
		d.enabled = false
		return
	}
	d.wakeList(&d.io)
	d.settle()
}

// armTimer makes the direction's timer fire at the earliest of its
// deadline and, for a listener, its back-off: one timer per direction,
// kept while its instant stays the same.
func (d *dir) armTimer() {
	at := d.deadline.Load()
	if !d.write {
		if b := d.fd.backoff.Load(); b != 0 && (at == 0 || b < at) {
			at = b
		}
	}
	l := d.fd.l
	if at == 0 {
		d.cancelTimer()
		return
	}
	if d.timer != 0 && d.timerAt == at {
		if !d.timerRef {
			_ = l.Reference(d.timer)
			d.timerRef = true
		}
		return
	}
	d.cancelTimer()
	delay := time.Duration(at - nowMono())
	if delay < 0 {
		delay = 0
	}
	d.timer = l.Delay(delay, d.onTimerFn)
	d.timerAt, d.timerRef = at, true
}

func (d *dir) cancelTimer() {
	if d.timer != 0 {
		d.fd.l.Cancel(d.timer)
		d.timer = 0
	}
}

func (d *dir) onTimer(core.CallbackID) {
	d.timer = 0
	d.wakeAll()
}

func (d *dir) wakeAll() {
	d.wakeList(&d.io)
	d.wakeList(&d.other)
	d.settle()
}

func (d *dir) wakeOther() {
	d.wakeList(&d.other)
	d.settle()
}

// wakeList wakes and clears a list. Waking re-enters nothing (a fiber's
// Resume is a microtask, a goroutine's a channel send), so the list can be
// cleared after the loop.
func (d *dir) wakeList(list *[]*waiter) {
	ws := *list
	if len(ws) == 0 {
		return
	}
	for i, w := range ws {
		ws[i] = nil
		w.queued = false
		d.queued.Add(-1)
		w.wake()
	}
	*list = ws[:0]
}

// settle lets the watcher and the timer stop keeping Run going once
// nobody waits for them.
func (d *dir) settle() {
	l := d.fd.l
	if len(d.io) == 0 && d.watchRef && d.watch != 0 {
		l.Unreference(d.watch)
		d.watchRef = false
	}
	if len(d.io) == 0 && len(d.other) == 0 && d.timerRef && d.timer != 0 {
		l.Unreference(d.timer)
		d.timerRef = false
	}
}

// release wakes everyone and cancels the watcher and the timer: the fd is
// closed (they see it when they try again).
func (d *dir) release() {
	d.wakeAll()
	l := d.fd.l
	if d.watch != 0 {
		l.Cancel(d.watch)
		d.watch = 0
	}
	d.cancelTimer()
}
