package core

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"syscall"
)

// FD is the loop's own wait for a file descriptor, for the I/O layers built
// on the loop (package socket, and through it httpserver): what the Go
// runtime's pollDesc and internal/poll's fdMutex are to package net. The
// package doc says what it guarantees. Init must be called before any
// other method; an FD must not be copied after Init. Watch, and an
// FDWatch's Stop, are for the loop (a fiber or a callback of the FD's
// loop: Watch panics elsewhere); every other method is safe from any
// goroutine, and where a fiber's Wait, Lock or Close would suspend, another
// goroutine's blocks.
type FD struct {
	l      *Loop
	sysfd  int
	file   fileID
	closed error // what calls return once Close has begun

	// Any goroutine.
	state atomic.Uint64         // fdmutex.go
	errp  atomic.Pointer[error] // the driver refused the fd, or it was closed behind the loop
	errno atomic.Uintptr        // the last Event.Errno the driver reported for the fd
	rd    fdDir
	wr    fdDir
	shut  atomic.Bool // the descriptor is closed (closeNow ran)

	// The loop's.
	in       Interest // what the fd's registration carries for FD's waiters
	attached bool     // known to l.fds (fdState.pd)
	dirty    bool     // on l.ioDirty: its interest changed since the last Wait
	slow     *fdSlow
}

// fdSlow is what an FD needs only for a deadline, a contended lock or a
// Close that waits for a user, made on the loop at the first of them: an
// idle connection needs none, and every connection has an FD.
type fdSlow struct {
	tm       [2]*callback // each direction's deadline timer (typeIOTimer)
	turns    [2]turns     // calls waiting for each direction's lock (fdmutex.go)
	closer   ioWaiter     // Close's, until the last user leaves
	closeErr error
}

func (p *FD) more() *fdSlow {
	if p.slow == nil {
		p.slow = new(fdSlow)
	}
	return p.slow
}

// fdDir is one direction of an FD: one waiter at a time, as its lock
// lets one call wait. It is small, as every connection has two: it knows
// neither its FD nor its direction (FD.modeOf), which its callers do.
type fdDir struct {
	deadline atomic.Int64 // on the loop's clock (ns since its epoch, plus one); 0: none
	waiting  atomic.Bool  // w is set: SetDeadline from another goroutine looks

	w ioWaiter // the loop's: the one waiting call or watch
}

// ioWaiter is a fiber of the loop, resumed, or a watch, whose func runs as
// a microtask (a goroutine's wait is a watch that closes its channel).
type ioWaiter struct {
	f *fiber
	x *FDWatch
}

// timed: a deadline of its direction wakes it.
func (w ioWaiter) timed() bool { return w.f != nil || w.x != nil && w.x.OnDeadline }

// typeIOTimer marks the timer node of an FD direction in the heap: its fn
// wakes the direction's waiter.
const typeIOTimer CallbackType = 7

// Init makes p the loop's wait for fd, which must be open (on Windows: a
// socket). closed is the error every call returns once Close has begun
// (package socket gives net.ErrClosed). The fd is registered with the
// driver at its first wait, not here.
func (p *FD) Init(l *Loop, fd int, closed error) error {
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("eventloop: FD.Init(%d): %w", fd, errors.ErrUnsupported)
	}
	if closed == nil {
		panic("eventloop: FD.Init called with a nil closed error")
	}
	if !l.noFileIDs {
		id, err := identify(fd)
		if err != nil {
			return unwatchable(fd, err)
		}
		p.file = id
	}
	p.l, p.sysfd, p.closed = l, fd, closed
	return nil
}

// Sysfd is the descriptor p waits for, as given to Init.
func (p *FD) Sysfd() int { return p.sysfd }

// Loop is the loop p waits on, as given to Init.
func (p *FD) Loop() *Loop { return p.l }

// Errno returns the last error the driver reported with the fd's hang-up
// or error readiness (driver.Event.Errno), 0 if none. Where the poller
// reads a socket's pending error to report it (libkqueue, under the kqueue
// driver), SO_ERROR is empty afterwards and this is where the error is
// left: a connect that failed asks here when SO_ERROR says 0.
func (p *FD) Errno() syscall.Errno { return syscall.Errno(p.errno.Load()) }

// modeOf is the direction of d, one of p's.
func (p *FD) modeOf(d *fdDir) Interest {
	if d == &p.rd {
		return Read
	}
	return Write
}

// side is d's index in p's fdSlow.
func (p *FD) side(d *fdDir) int { return int(p.modeOf(d) >> 1) }

func (p *FD) dir(mode Interest) *fdDir {
	if mode == Read {
		return &p.rd
	}
	if mode != Write {
		panic("eventloop: FD: the direction must be Read or Write, one of them") // no call, so that dir inlines
	}
	return &p.wr
}

// Wait waits until fd may be ready in direction mode (Read or Write):
// readiness, as the driver reports it, wakes it; so do the direction's
// deadline, Close and a refused registration. It returns nil (try the call
// again), the closed error, os.ErrDeadlineExceeded, the error of a
// registration the driver refused or of an fd closed behind the loop, or
// ErrLoopClosed. The caller holds a reference (Lock or Acquire), and one
// call waits in a direction at a time (Lock sees to it): a second panics.
//
// It is written for the fiber of an idle connection, which spends its life
// suspended here: its frame is small, since a suspended fiber's stack is
// most of what such a connection costs and the garbage collector gives a
// stack back only while less than a quarter of it is in use.
func (p *FD) Wait(mode Interest) error {
	d := p.dir(mode)
	l := p.l
	if !l.InFiber() {
		return p.waitOffLoop(d)
	}
	if err := p.after(d); err != nil || l.closing {
		return cmp.Or(err, ErrLoopClosed)
	}
	f := l.cur
	p.park(d, ioWaiter{f: f})
	// suspendHere, written out as in Suspend: this is every socket
	// read's and write's wait.
	f.suspended = true
	l.fiberSuspends()
	f.yield(struct{}{})
	if f.probe {
		l.probed(f)
	}
	f.suspended = false
	l.fiberResumed()
	if l.closing {
		if d.w.f == f {
			l.waitEnds(p.unpark(d))
		}
		return ErrLoopClosed
	}
	return p.after(d)
}

// waitOffLoop is Wait from a goroutine that is not the loop's.
func (p *FD) waitOffLoop(d *fdDir) error {
	if err := p.waitGoroutine(func(x *FDWatch) bool { return p.arm(d, x) == nil }, true); err != nil {
		return err
	}
	return p.after(d)
}

// after is what a wait returns once woken (or not begun): try again, or
// why not. A call that is not closing, failed or under a deadline makes
// three loads and no call beyond this one (which the compiler finds too
// large to inline).
func (p *FD) after(d *fdDir) error {
	if p.state.Load()&fdClosing == 0 && p.errp.Load() == nil && d.deadline.Load() == 0 {
		return nil
	}
	return p.afterSlow(d)
}

func (p *FD) afterSlow(d *fdDir) error {
	if p.Closing() {
		return p.closed
	}
	if e := p.errp.Load(); e != nil {
		return *e
	}
	if d.expired(p.l) {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// waitGoroutine is the wait of a goroutine that is not the loop's: its
// waiter is a watch that closes a channel, which queue puts in place on
// the loop (false: no need to wait), and it waits for the channel in
// RunUntil. An uncaught error that ends the run it made ends a wait that
// can be given up (giveUp), else it is reported once the wait ends.
func (p *FD) waitGoroutine(queue func(x *FDWatch) bool, giveUp bool) error {
	l := p.l
	ch := make(chan struct{})
	x := &FDWatch{Referenced: true, OnDeadline: true, fn: func() { close(ch) }}
	x.run = x.fire
	if l.Post(func() {
		if !queue(x) {
			close(ch)
		}
	}) != nil {
		return ErrLoopClosed
	}
	var uncaught error
	for {
		err := l.RunUntil(ch)
		switch {
		case err == nil:
			return uncaught
		case errors.Is(err, ErrLoopClosed):
			return ErrLoopClosed
		case giveUp:
			_ = l.Post(func() { x.Stop() })
			return err
		}
		uncaught = cmp.Or(uncaught, err)
	}
}

// park makes w the waiter of d and the fd's registration carry d's
// interest; one waiter at a time.
func (p *FD) park(d *fdDir, w ioWaiter) {
	if d.w != (ioWaiter{}) {
		panic("eventloop: FD: a second wait in one direction; calls take the direction's lock (Lock) before they wait, and a watch is stopped first")
	}
	d.w = w
	d.waiting.Store(true)
	p.l.waitBegins(w)
	if mode := p.modeOf(d); p.in&mode == 0 || !p.attached {
		p.in |= mode
		p.markDirty() // flushIO attaches it, off the waiting fiber's stack
	}
	if d.deadline.Load() != 0 && w.timed() {
		p.armTimer(d)
	}
}

// unpark empties d's slot and returns what it held.
func (p *FD) unpark(d *fdDir) ioWaiter {
	w := d.w
	d.w = ioWaiter{}
	d.waiting.Store(false)
	return w
}

// wakeSlot wakes d's waiter, if any.
func (p *FD) wakeSlot(d *fdDir, fromDispatch bool) {
	if d.w != (ioWaiter{}) {
		p.l.wake(p.unpark(d), fromDispatch)
	}
}

func (l *Loop) waitBegins(w ioWaiter) {
	if w.f != nil || w.x.Referenced {
		l.ioWaiters++
	}
}

func (l *Loop) waitEnds(w ioWaiter) {
	if w.f != nil || w.x != nil && w.x.Referenced {
		l.ioWaiters--
	}
}

// wake ends w's wait: a fiber onto the callback queue (from dispatch) or
// the microtasks (from a call), a watch's func onto the microtasks, from
// dispatch too: it runs before the tick's callbacks, which is as early as
// a callback of the tick's own.
func (l *Loop) wake(w ioWaiter, fromDispatch bool) {
	l.waitEnds(w)
	switch {
	case w.f == nil:
		w.x.due = true
		l.microtasks.push(task{fn: w.x.run})
		l.idle = false
	case fromDispatch:
		l.callbackQueue.push(entry{f: w.f})
		l.idle = false
	default:
		l.microtasks.push(task{f: w.f})
	}
}

// dirReady wakes the waiter of d, which the driver reported ready; a
// direction that nobody waits for loses its interest.
func (l *Loop) dirReady(p *FD, d *fdDir) {
	if d.w != (ioWaiter{}) {
		l.wake(p.unpark(d), true)
		return
	}
	p.in &^= p.modeOf(d)
	p.markDirty()
}

// attach makes p the owner of its number in the loop's fd table.
func (p *FD) attach() {
	st := p.l.fdState(p.sysfd)
	if old := st.pd; old != nil && old != p {
		// The number's last owner was closed without Close (behind the
		// loop's back) and the number reused: it is gone.
		old.fail(fmt.Errorf("eventloop: fd %d: %w; its number now names another file", old.sysfd, ErrFDClosed))
	}
	if !st.registered {
		st.file = p.file
	}
	st.pd = p
	p.attached = true
}

func (p *FD) markDirty() {
	if !p.dirty {
		p.dirty = true
		p.l.ioDirty = append(p.l.ioDirty, p)
	}
}

// flushIO brings the driver's registrations in line with what the FDs'
// waiters want, before the tick's Wait (so never on a waiting fiber's
// stack: an idle connection's fiber stack stays at its smallest).
func (l *Loop) flushIO() {
	for i, p := range l.ioDirty {
		l.ioDirty[i] = nil
		p.dirty = false
		if p.shut.Load() || p.errp.Load() != nil {
			continue
		}
		if !p.attached {
			p.attach()
		}
		if st := &l.fds[p.sysfd]; st.pd == p {
			l.syncFD(p.sysfd, st)
		}
	}
	l.ioDirty = l.ioDirty[:0]
}

// onLoop runs fn on the loop: at once from one of its fibers, else posted
// (dropped once the loop is closed: its waiters learn that from RunUntil).
func (p *FD) onLoop(fn func()) {
	if p.l.InFiber() {
		fn()
		return
	}
	_ = p.l.Post(fn)
}
