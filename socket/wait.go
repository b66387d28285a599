//go:build unix || windows

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
	fd *netFD

	// Any goroutine.
	deadline atomic.Int64 // mono ns (deadline.go); 0: none
	lock     atomic.Int32 // 1: a call of this direction is in progress
	lockWait atomic.Int32 // callers waiting for the lock
	queued   atomic.Int32 // waiters on the lists: a new deadline needs the loop only then

	// The lock holder's.
	drained bool // the last read came back short: the kernel had no more

	// The loop's.
	write    bool
	enabled  bool
	watchRef bool
	timerRef bool
	watch    core.CallbackID
	io       []*waiter // readiness
	ioOne    [1]*waiter
	fiberW   waiter // the readiness waiter of the lock holder when it is a fiber

	// Made when first needed, as most conns never need them.
	other *[]*waiter // the lock, a listener's back-off
	tm    *dirTimer
}

// dirTimer is a direction's timer: its deadline, or a listener's back-off.
type dirTimer struct {
	id      core.CallbackID // 0: none
	at      int64           // when it fires (mono ns)
	onTimer func(core.CallbackID)
}

// others is the number of waiters for the lock or the back-off.
func (d *dir) others() int {
	if d.other == nil {
		return 0
	}
	return len(*d.other)
}

func (d *dir) addOther(w *waiter) {
	if d.other == nil {
		d.other = new([]*waiter)
	}
	*d.other = append(*d.other, w)
}

// timerID is the direction's timer, 0 if none.
func (d *dir) timerID() core.CallbackID {
	if d.tm == nil {
		return 0
	}
	return d.tm.id
}

const (
	waitIO    uint8 = iota // readiness
	waitLock               // the direction's lock
	waitSleep              // a listener's back-off
)

func (d *dir) init(fd *netFD, write bool) {
	d.fd, d.write = fd, write
	d.io = d.ioOne[:0]
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
	fd := d.fd
	if !fd.l.InFiber() {
		return d.waitGoroutine(kind)
	}
	// A fiber of the loop: written in one frame (see enqueue).
	w := &d.fiberW
	if kind != waitIO || w.queued {
		w = &waiter{} // contention: rare, and it may allocate
	}
	w.kind = kind
	w.s = fd.l.Suspension()
	if d.enqueue(w) {
		if !d.syncQuick() && !fd.syncQueued {
			fd.syncQueued = true
			fd.l.Queue(fd.syncFn) // queueSync, one frame less
		}
		if _, err := w.s.Suspend(); err != nil {
			// Close unwinds the fiber; the lists go with the loop.
			fd.loopGone()
			return errLoopClosed
		}
	}
	if fd.isClosed() {
		// Close woke it (or came first): the call ends here rather than
		// trying the descriptor again.
		return fd.closedErr()
	}
	return nil
}

func (d *dir) waitGoroutine(kind uint8) error {
	fd := d.fd
	w := newGoroutineWaiter(d, kind)
	err := fd.l.Post(func() {
		if !d.enqueue(w) {
			w.wake()
		} else if !d.syncQuick() {
			d.sync()
		}
	})
	if err == nil {
		err = block(fd.l, w, false)
	} else {
		err = errLoopClosed
	}
	switch {
	case err == errLoopClosed:
		fd.loopGone()
	case err == nil && fd.isClosed():
		err = fd.closedErr()
	}
	return err
}

// enqueue puts w on d's lists, on the loop; false means try again at once
// (closed, the deadline passed, the lock or the back-off is over). The
// caller then brings the watcher and the timer in line: syncQuick, and if
// that is not enough sync, which a fiber leaves to a microtask (queueSync)
// to keep it off its own stack. That stack is most of what an idle
// connection costs, and the runtime grows it for good (from 2 KiB to 4)
// the first time a call goes deeper than it holds: registering a watcher
// from inside a Read would do that to every connection. For the same
// reason the fiber path keeps its frames few and small.
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
		d.addOther(w)
	case waitSleep:
		if b := fd.ln.backoff.Load(); b == 0 || nowMono() >= b {
			d.queued.Add(-1)
			return false
		}
		d.addOther(w)
	default:
		d.io = append(d.io, w)
	}
	w.queued = true
	return true
}

// syncQuick does what sync would, if that takes no more than enabling or
// referencing a watcher that exists and a timer armed for the right
// instant (the steady state of a conn that waits again and again); false:
// sync is needed.
func (d *dir) syncQuick() bool {
	l := d.fd.l
	if len(d.io) > 0 {
		if d.watch == 0 {
			return false
		}
		if !d.enabled {
			if l.Enable(d.watch) != nil {
				return false
			}
			d.enabled = true
		}
		if !d.watchRef {
			_ = l.Reference(d.watch)
			d.watchRef = true
		}
	}
	at := d.timerDue()
	switch {
	case at == 0:
		return d.timerID() == 0
	case d.timerID() == 0 || d.tm.at != at:
		return false
	}
	if !d.timerRef {
		_ = l.Reference(d.tm.id)
		d.timerRef = true
	}
	return true
}

// sync brings the watcher and the timer of d in line with its waiters,
// on the loop: wakes them if the deadline has passed, else makes or
// enables the watcher for readiness waiters and arms the timer.
func (d *dir) sync() {
	if len(d.io) == 0 && d.others() == 0 {
		return // the next wait does what it needs
	}
	if d.expired() {
		d.wakeAll()
		return
	}
	if len(d.io) > 0 {
		d.watchOn()
	}
	d.armTimer()
}

// queueSync has a microtask sync both directions of fd, once however many
// ask before it runs.
func (fd *netFD) queueSync() {
	if fd.syncQueued {
		return
	}
	fd.syncQueued = true
	fd.l.Queue(fd.syncFn)
}

// syncDirs runs on the loop: after a fiber's wait (queueSync) and after a
// deadline changed while someone waits (setDeadline).
func (fd *netFD) syncDirs() {
	fd.syncQueued = false
	if fd.isClosed() || fd.l.IsClosed() {
		return // release wakes everyone, or the loop's Close unwinds them
	}
	fd.rd.sync()
	fd.wr.sync()
}

// remove takes w off d's lists, on the loop (a goroutine that gave up).
func (d *dir) remove(w *waiter) {
	if !w.queued {
		return
	}
	for _, list := range []*[]*waiter{&d.io, d.other} {
		if list == nil {
			continue
		}
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
			d.watch = l.OnWritable(d.fd.sysfd, d.onReady)
		} else {
			d.watch = l.OnReadable(d.fd.sysfd, d.onReady)
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

// prepare makes the direction's watcher ahead of its first wait, disabled
// (no registration with the driver until a wait enables it), so that the
// wait does not make it on the waiting fiber's stack (see enqueue). It
// runs on the loop.
func (d *dir) prepare() {
	d.fd.touched.Store(true) // Close cancels it
	d.watchOn()
	d.fd.l.Disable(d.watch)
	d.enabled = false
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

// timerDue is when the direction's timer should fire: the earliest of its
// deadline and, for a listener, its back-off; 0: no timer.
func (d *dir) timerDue() int64 {
	at := d.deadline.Load()
	if ln := d.fd.ln; ln != nil && !d.write {
		if b := ln.backoff.Load(); b != 0 && (at == 0 || b < at) {
			at = b
		}
	}
	return at
}

// armTimer makes the direction's timer fire at timerDue: one timer per
// direction, kept while its instant stays the same.
func (d *dir) armTimer() {
	at := d.timerDue()
	l := d.fd.l
	if at == 0 {
		d.cancelTimer()
		return
	}
	if d.timerID() != 0 && d.tm.at == at {
		if !d.timerRef {
			_ = l.Reference(d.tm.id)
			d.timerRef = true
		}
		return
	}
	d.cancelTimer()
	delay := time.Duration(at - nowMono())
	if delay < 0 {
		delay = 0
	}
	if d.tm == nil {
		d.tm = &dirTimer{onTimer: d.onTimer} // kept: re-arming allocates nothing
	}
	d.tm.id = l.Delay(delay, d.tm.onTimer)
	d.tm.at, d.timerRef = at, true
}

func (d *dir) cancelTimer() {
	if id := d.timerID(); id != 0 {
		d.fd.l.Cancel(id)
		d.tm.id = 0
	}
}

func (d *dir) onTimer(core.CallbackID) {
	d.tm.id = 0
	d.wakeAll()
}

func (d *dir) wakeAll() {
	d.wakeList(&d.io)
	if d.other != nil {
		d.wakeList(d.other)
	}
	d.settle()
}

func (d *dir) wakeOther() {
	if d.other != nil {
		d.wakeList(d.other)
	}
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
	if len(d.io) == 0 && d.others() == 0 && d.timerRef && d.timerID() != 0 {
		l.Unreference(d.tm.id)
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
