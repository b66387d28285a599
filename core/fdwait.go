package core

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// FD is the loop's own wait for a file descriptor, for the I/O layers built
// on the loop (package socket, and through it httpserver): what the Go
// runtime's pollDesc is to package net. It is exported so that a layer
// written outside this module (a serial port, a TUN device, another
// protocol) waits the way package socket does; user code that wants a
// callback per readiness keeps Revolt's OnReadable and OnWritable, whose
// semantics FD does not touch.
//
// What it does:
//
//   - The fd is registered with the driver at its first wait and stays
//     registered for its life; readiness that nobody waits for takes its
//     interest away (one Modify), the next wait puts it back. Interest
//     changes are made before the tick's driver Wait, never on the waiting
//     fiber's stack.
//   - A fiber that waits for a direction (Wait) is resumed straight from the
//     driver's event, in that tick: the event finds the fd, the fd its
//     waiting fiber, and the fiber goes onto the tick's callback queue. No
//     callback object and no microtask stand in between.
//   - Deadlines (SetDeadline) live in the loop's timer heap, one timer node
//     per direction made on first use: no callback per deadline.
//   - Calls take a reference (Acquire, Lock) and give it back (Release,
//     Unlock); Close wakes every waiter (their calls return the error given
//     to Init), waits until the last user has left, deregisters the fd and
//     closes it, and only then returns: nobody reads a file that took the
//     number, and the number is free once Close returns.
//   - A wait keeps Run going (as a referenced watcher would) until it ends.
//
// Who may call: every method is safe from any goroutine. From a fiber of
// the loop a call that waits suspends that fiber. From any other goroutine
// it blocks that goroutine: its wait is posted to the loop and it waits in
// Loop.RunUntil, so when nobody runs the loop it runs it itself until its
// call is done, and hands it to the next goroutine that needs it (a wait
// keeps the loop alive, so the run that serves one goroutine never ends
// while another still waits).
//
// Init must be called before any other method; an FD must not be copied
// after Init.
type FD struct {
	l      *Loop
	sysfd  int
	file   fileID
	closed error // what calls return once Close has begun

	// Any goroutine.
	refs  atomic.Int64          // users in the low bits; fdClosing once Close began
	errp  atomic.Pointer[error] // the driver refused the fd, or it was closed behind the loop
	shut  atomic.Bool           // the descriptor is closed (closeNow ran)
	errno atomic.Uintptr        // the last Event.Errno the driver reported for the fd
	rd    fdDir
	wr    fdDir

	// The loop's.
	in       Interest // what the fd's registration carries for FD's waiters
	attached bool     // known to l.fds (fdState.pd)
	dirty    bool     // on l.ioDirty: its interest changed since the last Wait
	closer   *ioWaiter
	closeErr error
}

// fdDir is one direction of an FD: its lock, its deadline and its waiters.
type fdDir struct {
	mode     Interest
	lock     atomic.Int32 // 1: a call of this direction is in progress
	waiting  atomic.Int32 // waiters queued, or about to be: a deadline change or an Unlock looks at it
	deadline atomic.Int64 // on the loop's clock (ns since its epoch, plus one); 0: none

	// The loop's.
	ready      []*ioWaiter // waiting for readiness
	readyOne   [1]*ioWaiter
	turn       []*ioWaiter // waiting for the lock, or sleeping
	sleepUntil int64       // the earliest sleeper's instant; 0: none
	tm         *callback   // the direction's timer node (typeIOTimer), made on first use
}

// ioWaiter is one waiting call: a fiber (every fiber has one, so a fiber's
// wait allocates nothing) or another goroutine (ch).
type ioWaiter struct {
	f      *fiber
	ch     chan struct{}
	watch  *FDWatch // a watch's (Watch): unreferenced, runs a func
	until  int64    // a sleeper's instant
	queued bool
}

const fdClosing = 1 << 62

// typeIOTimer marks a timer node of an FD direction in the heap: it wakes
// the direction's waiters instead of running a callback. Its fd field is
// the descriptor and its interval the direction (0 read, 1 write).
const typeIOTimer CallbackType = 7

type waitKind uint8

const (
	waitReady waitKind = iota
	waitTurn
	waitSleep
)

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
	p.rd.mode, p.wr.mode = Read, Write
	p.rd.ready = p.rd.readyOne[:0]
	return nil
}

// Sysfd is the descriptor.
func (p *FD) Sysfd() int { return p.sysfd }

// Errno returns the last error the driver reported with the fd's hang-up
// or error readiness (driver.Event.Errno), 0 if none. Where the poller
// reads a socket's pending error to report it (libkqueue, under the kqueue
// driver), SO_ERROR is empty afterwards and this is where the error is
// left: a connect that failed asks here when SO_ERROR says 0.
func (p *FD) Errno() syscall.Errno { return syscall.Errno(p.errno.Load()) }

func (p *FD) dir(mode Interest) *fdDir {
	if mode == Read {
		return &p.rd
	}
	if mode != Write {
		panic("eventloop: FD: the direction must be Read or Write, one of them") // no call, so that dir inlines
	}
	return &p.wr
}

// Acquire takes a reference for a call; false once Close has begun. The
// descriptor stays open until every reference is released.
func (p *FD) Acquire() bool {
	for {
		s := p.refs.Load()
		if s&fdClosing != 0 {
			return false
		}
		if p.refs.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// Release gives back a reference; the last one after Close lets Close
// close the descriptor.
func (p *FD) Release() {
	if p.refs.Add(-1) == fdClosing {
		p.lastLeft()
	}
}

// Closing reports whether Close has begun.
func (p *FD) Closing() bool { return p.refs.Load()&fdClosing != 0 }

// Lock takes a reference and the lock of direction mode for one call:
// calls in one direction take turns (two Writes never interleave their
// bytes), as net's do. Waiting for the turn ends with the closed error
// once Close begins, with os.ErrDeadlineExceeded once the direction's
// deadline passes, or with ErrLoopClosed.
func (p *FD) Lock(mode Interest) error {
	if !p.Acquire() {
		return p.closed
	}
	d := p.dir(mode)
	if d.lock.CompareAndSwap(0, 1) {
		return nil
	}
	for {
		if p.Closing() {
			p.Release()
			return p.closed
		}
		if d.lock.CompareAndSwap(0, 1) {
			return nil
		}
		if err := p.wait(d, waitTurn, 0); err != nil {
			p.Release()
			return err
		}
	}
}

// Unlock gives up the lock of direction mode and the call's reference.
func (p *FD) Unlock(mode Interest) {
	d := p.dir(mode)
	d.lock.Store(0)
	// A waiter counts itself before it looks at the lock for the last
	// time (enqueue), so either it sees the lock free or this sees it.
	if d.waiting.Load() > 0 {
		p.onLoop(func() { p.l.wakeList(&d.turn, d, false) })
	}
	p.Release()
}

// Expired reports whether the deadline of direction mode has passed.
func (p *FD) Expired(mode Interest) bool {
	d := p.dir(mode)
	// Inlined, a call without a deadline reads no clock and calls nothing.
	return d.deadline.Load() != 0 && d.expired(p.l)
}

func (d *fdDir) expired(l *Loop) bool {
	dl := d.deadline.Load()
	return dl != 0 && l.clock() >= dl
}

// testHookDeadline, when set, runs in SetDeadline just after its clock
// reading, as a preemption there would.
var testHookDeadline func()

// clock is the loop's monotonic clock for deadlines, never 0; safe from
// any goroutine.
func (l *Loop) clock() int64 { return int64(time.Since(l.epoch)) + 1 }

// SetDeadline sets the deadline of the directions in mode (Read, Write or
// both); the zero time removes it. A wait in progress sees the change: a
// deadline that has passed ends it with os.ErrDeadlineExceeded.
func (p *FD) SetDeadline(mode Interest, t time.Time) {
	var v int64
	if !t.IsZero() {
		// One reading of the clock for both: a goroutine preempted
		// between two would set the deadline early by the time it lost.
		at := time.Now()
		if testHookDeadline != nil {
			testHookDeadline()
		}
		now := int64(at.Sub(p.l.epoch)) + 1
		d := int64(t.Sub(at))
		switch {
		case d > 0 && now > math.MaxInt64-d:
			v = math.MaxInt64
		case d <= 0:
			v = 1 // passed
		default:
			v = now + d
		}
	}
	waiting := false
	if mode&Read != 0 {
		p.rd.deadline.Store(v)
		waiting = p.rd.waiting.Load() > 0
	}
	if mode&Write != 0 {
		p.wr.deadline.Store(v)
		waiting = waiting || p.wr.waiting.Load() > 0
	}
	if waiting {
		p.onLoop(p.syncTimers)
	}
}

// Wait waits until fd may be ready in direction mode (Read or Write):
// readiness, as the driver reports it, wakes it; so do a deadline, Close
// and a refused registration. It returns nil (try the call again), the
// closed error, os.ErrDeadlineExceeded, the error of a registration the
// driver refused or of an fd closed behind the loop, or ErrLoopClosed. The
// caller holds a reference (Lock or Acquire).
//
// It is written for the fiber of an idle connection, which spends its life
// suspended here: its frames are few and small, since a suspended fiber's
// stack is most of what such a connection costs and the garbage collector
// gives a stack back only while less than a quarter of it is in use.
func (p *FD) Wait(mode Interest) error {
	d := &p.rd
	if mode == Write {
		d = &p.wr
	}
	l := p.l
	if !l.InFiber() {
		return p.waitGoroutine(d, waitReady, 0)
	}
	// enqueue for readiness, written out: it is the deepest point of an
	// idle connection's fiber.
	d.waiting.Add(1)
	if p.refs.Load()&fdClosing != 0 || p.errp.Load() != nil || l.closing {
		d.waiting.Add(-1)
		return p.after(d)
	}
	dl := d.deadline.Load()
	if dl != 0 && l.clock() >= dl {
		d.waiting.Add(-1)
		return os.ErrDeadlineExceeded
	}
	f := l.cur
	w := &f.iow
	w.f, w.until, w.queued = f, 0, true
	d.ready = append(d.ready, w)
	l.ioWaiters++
	if p.in&mode == 0 || !p.attached {
		p.in |= mode
		p.markDirty()
	}
	if dl != 0 {
		p.armTimer(d)
	}
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
		p.remove(d, w)
		return ErrLoopClosed
	}
	return p.after(d)
}

// Sleep waits for d (a back-off), or until Close or the deadline of
// direction mode; it returns what Wait does.
func (p *FD) Sleep(mode Interest, d time.Duration) error {
	return p.wait(p.dir(mode), waitSleep, p.l.clock()+int64(max(d, 1)))
}

// Prepare returns the error a call in direction mode would end with before
// it makes its system call: the closed error, the fd's failure, or
// os.ErrDeadlineExceeded; nil to go on.
func (p *FD) Prepare(mode Interest) error {
	if p.Closing() {
		return p.closed
	}
	if e := p.errp.Load(); e != nil {
		return *e
	}
	if p.dir(mode).expired(p.l) {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// after is what a wait returns once woken (or not queued): try again, or
// why not.
func (p *FD) after(d *fdDir) error {
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

func (p *FD) wait(d *fdDir, kind waitKind, until int64) error {
	l := p.l
	if !l.InFiber() {
		return p.waitGoroutine(d, kind, until)
	}
	f := l.cur
	w := &f.iow
	w.f, w.until = f, until
	d.waiting.Add(1)
	if !p.enqueue(d, w, kind) {
		d.waiting.Add(-1)
		return p.after(d)
	}
	if l.suspendHere(f) {
		p.remove(d, w) // Close unwinds the fiber
		return ErrLoopClosed
	}
	return p.after(d)
}

func (p *FD) waitGoroutine(d *fdDir, kind waitKind, until int64) error {
	l := p.l
	w := &ioWaiter{ch: make(chan struct{}), until: until}
	d.waiting.Add(1)
	if l.Post(func() {
		if !p.enqueue(d, w, kind) {
			d.waiting.Add(-1)
			close(w.ch)
		}
	}) != nil {
		d.waiting.Add(-1)
		return ErrLoopClosed
	}
	if err := l.RunUntil(w.ch); err != nil {
		if errors.Is(err, ErrLoopClosed) {
			return ErrLoopClosed
		}
		// An uncaught error ended the run this goroutine made for its
		// wait: it gives the wait up and reports it.
		_ = l.Post(func() { p.remove(d, w) })
		return err
	}
	return p.after(d)
}

// enqueue puts w on d's lists, on the loop; false: do not wait (closed,
// failed, past the deadline, the lock free, the sleep over).
func (p *FD) enqueue(d *fdDir, w *ioWaiter, kind waitKind) bool {
	l := p.l
	if p.Closing() || p.errp.Load() != nil || l.closing || d.expired(l) {
		return false
	}
	switch kind {
	case waitReady:
		d.ready = append(d.ready, w)
		if p.in&d.mode == 0 {
			p.in |= d.mode
			p.markDirty()
		}
	case waitTurn:
		if d.lock.Load() == 0 {
			return false
		}
		d.turn = append(d.turn, w)
	case waitSleep:
		if l.clock() >= w.until {
			return false
		}
		d.turn = append(d.turn, w)
		if d.sleepUntil == 0 || w.until < d.sleepUntil {
			d.sleepUntil = w.until
		}
	}
	w.queued = true
	l.ioWaiters++
	if !p.attached {
		p.markDirty() // flushIO attaches it, off the waiting fiber's stack
	}
	if d.deadline.Load() != 0 || d.sleepUntil != 0 {
		p.armTimer(d)
	}
	return true
}

// attach makes p the owner of its number in the loop's fd table.
func (p *FD) attach() {
	l := p.l
	st := l.fdState(p.sysfd)
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

// remove takes w off d's lists, on the loop (a wait given up).
func (p *FD) remove(d *fdDir, w *ioWaiter) {
	if !w.queued {
		return
	}
	for _, list := range []*[]*ioWaiter{&d.ready, &d.turn} {
		for i, x := range *list {
			if x == w {
				copy((*list)[i:], (*list)[i+1:])
				(*list)[len(*list)-1] = nil
				*list = (*list)[:len(*list)-1]
				w.queued = false
				if w.watch == nil {
					p.l.ioWaiters--
				}
				d.waiting.Add(-1)
				return
			}
		}
	}
}

// fdReady wakes the waiters of the directions in ready; a direction that
// nobody waits for loses its interest (level-triggered: it would report
// the same readiness every tick).
func (l *Loop) fdReady(p *FD, ready Interest) {
	if ready&Read != 0 {
		l.dirReady(p, &p.rd)
	}
	if ready&Write != 0 {
		l.dirReady(p, &p.wr)
	}
}

func (l *Loop) dirReady(p *FD, d *fdDir) {
	switch len(d.ready) {
	case 0:
		p.in &^= d.mode
		p.markDirty()
	case 1:
		// One waiter, the common case: wakeList without its loop.
		w := d.ready[0]
		d.ready[0] = nil
		d.ready = d.ready[:0]
		d.waiting.Add(-1)
		l.wake(w, true)
	default:
		l.wakeList(&d.ready, d, true)
	}
}

// wakeList wakes every waiter of list: a fiber onto the callback queue
// (from dispatch) or the microtasks (from a call), a goroutine by closing
// its channel.
func (l *Loop) wakeList(list *[]*ioWaiter, d *fdDir, fromDispatch bool) {
	ws := *list
	if len(ws) == 0 {
		return
	}
	for i, w := range ws {
		ws[i] = nil
		l.wake(w, fromDispatch)
	}
	d.waiting.Add(-int32(len(ws)))
	*list = ws[:0]
	if list == &d.turn {
		d.sleepUntil = 0
	}
}

func (l *Loop) wake(w *ioWaiter, fromDispatch bool) {
	w.queued = false
	if w.watch != nil {
		// A microtask, from dispatch too: it runs before the tick's
		// callbacks, which is as early as a callback of the tick's own.
		w.watch.due = true
		l.microtasks.push(task{fn: w.watch.run})
		l.idle = false
		return
	}
	l.ioWaiters--
	switch {
	case w.ch != nil:
		close(w.ch)
	case fromDispatch:
		l.callbackQueue.push(entry{f: w.f})
		l.idle = false
	default:
		l.microtasks.push(task{f: w.f})
	}
}

func (l *Loop) wakeAll(d *fdDir, fromDispatch bool) {
	l.wakeList(&d.ready, d, fromDispatch)
	l.wakeList(&d.turn, d, fromDispatch)
}

// armTimer makes d's timer fire at the earlier of its deadline and its
// first sleeper's instant, while anyone waits.
func (p *FD) armTimer(d *fdDir) {
	at := d.deadline.Load()
	if s := d.sleepUntil; s != 0 && (at == 0 || s < at) {
		at = s
	}
	l := p.l
	if at == 0 {
		p.disarm(d)
		return
	}
	if d.tm == nil {
		d.tm = &callback{typ: typeIOTimer, heapIdx: -1, fd: int32(p.sysfd)}
		if d.mode == Write {
			d.tm.interval = 1
		}
	}
	c := d.tm
	if c.heapIdx >= 0 {
		if c.deadline == at-1 {
			return
		}
		l.timers.remove(c)
	}
	c.deadline = at - 1 // the clock's plus one
	l.timerSeq++
	c.seq = l.timerSeq
	l.timers.push(c)
}

func (p *FD) disarm(d *fdDir) {
	if d.tm != nil && d.tm.heapIdx >= 0 {
		p.l.timers.remove(d.tm)
	}
}

// ioTimer wakes the waiters of the direction whose timer fired; they look
// for themselves at what passed. Every FD with waiters is attached by then
// (flushIO runs before the timers of a tick).
func (l *Loop) ioTimer(c *callback) {
	if int(c.fd) >= len(l.fds) {
		return
	}
	p := l.fds[c.fd].pd
	if p == nil {
		return
	}
	d := &p.rd
	if c.interval == 1 {
		d = &p.wr
	}
	l.wakeAll(d, true)
}

// syncTimers runs on the loop after a deadline changed while someone
// waited: a passed deadline wakes them, a moved one re-arms the timer.
func (p *FD) syncTimers() {
	if p.shut.Load() || p.l.closing {
		return
	}
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		if len(d.ready) == 0 && len(d.turn) == 0 {
			continue
		}
		if d.expired(p.l) {
			p.l.wakeAll(d, false)
		} else {
			p.armTimer(d)
		}
	}
}

// fail wakes every waiter of p with err and keeps err for every later
// call: the driver refused the fd, or it was found closed. A driver's
// error for an fd whose number no longer names its file (closed behind
// the loop's back: epoll says EBADF, libkqueue EFAULT) wraps ErrFDClosed,
// as the sweep's does.
func (p *FD) fail(err error) {
	if !errors.Is(err, ErrFDClosed) && p.gone() {
		err = fmt.Errorf("%w; %w", err, ErrFDClosed)
	}
	p.errp.CompareAndSwap(nil, &err)
	l := p.l
	p.in = 0
	p.attached = false
	if int(p.sysfd) < len(l.fds) && l.fds[p.sysfd].pd == p {
		l.fds[p.sysfd].pd = nil
	}
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		l.wakeAll(d, false)
		p.disarm(d)
	}
}

// gone reports whether p's number no longer names the file p was made for.
func (p *FD) gone() bool {
	if !haveFileID || p.l.noFileIDs {
		return false
	}
	id, err := identify(p.sysfd)
	return err != nil || !sameFile(&p.file, id)
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

// Close wakes every waiter (their calls return the closed error), waits
// until the last user has left (from a fiber it suspends, from any other
// goroutine it blocks), deregisters the fd and closes it; it returns once
// the descriptor is closed, with close's error. A second Close returns the
// closed error. After the loop's Close it closes the descriptor as soon as
// the last user has left, without waiting for it.
func (p *FD) Close() error {
	for {
		s := p.refs.Load()
		if s&fdClosing != 0 {
			return p.closed
		}
		if p.refs.CompareAndSwap(s, s|fdClosing) {
			break
		}
	}
	l := p.l
	if l.IsClosed() {
		if p.refs.Load() == fdClosing {
			return p.closeNow()
		}
		return nil // the last Release closes it
	}
	if l.InFiber() {
		f := l.cur
		if p.closeStep(&f.iow, f) {
			return p.closeErr
		}
		if l.suspendHere(f) {
			p.closer = nil
			return p.closeAfterLoop()
		}
		return p.closeErr
	}
	w := &ioWaiter{ch: make(chan struct{})}
	if l.Post(func() {
		if p.closeStep(w, nil) {
			close(w.ch)
		}
	}) != nil {
		return p.closeAfterLoop()
	}
	for {
		err := l.RunUntil(w.ch)
		if err == nil {
			return p.closeErr
		}
		if errors.Is(err, ErrLoopClosed) {
			return p.closeAfterLoop()
		}
		// An uncaught error from the run this goroutine made: Close goes
		// on until the descriptor is closed (it must not leak it).
	}
}

// closeAfterLoop is Close's end once the loop has been closed meanwhile.
func (p *FD) closeAfterLoop() error {
	if p.refs.Load() == fdClosing {
		return p.closeNow()
	}
	return nil
}

// closeStep runs on the loop for Close: it wakes every waiter, then closes
// the fd if nobody uses it (true), else leaves w (the closer) to be woken
// by the last user's Release.
func (p *FD) closeStep(w *ioWaiter, f *fiber) bool {
	l := p.l
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		l.wakeAll(d, false)
		p.disarm(d)
	}
	if p.refs.Load() == fdClosing {
		p.closeErr = p.closeNow()
		return true
	}
	w.f, w.queued = f, true
	l.ioWaiters++
	p.closer = w
	return false
}

// lastLeft runs where the last user released p after Close began.
func (p *FD) lastLeft() {
	l := p.l
	if l.IsClosed() {
		_ = p.closeNow()
		return
	}
	p.onLoop(func() {
		if w := p.closer; w != nil {
			p.closer = nil
			p.closeErr = p.closeNow()
			l.wake(w, false)
		}
	})
}

// closeNow lets the loop forget fd and closes it, once.
func (p *FD) closeNow() error {
	if !p.shut.CompareAndSwap(false, true) {
		return nil
	}
	l := p.l
	if !l.IsClosed() {
		p.disarm(&p.rd)
		p.disarm(&p.wr)
		if p.attached && p.sysfd < len(l.fds) && l.fds[p.sysfd].pd == p {
			l.fds[p.sysfd].pd = nil
		}
		p.attached, p.in = false, 0
		l.releaseFD(p.sysfd)
	}
	if err := closeFile(p.sysfd); err != nil {
		return fmt.Errorf("eventloop: FD.Close(%d): %w", p.sysfd, err)
	}
	return nil
}

// FDWatch is a func that an FD runs once, on the loop, when a direction may
// be ready, for a layer that watches a direction while no call waits on
// it: httpserver's watch for a client's going while its handler runs. It
// takes no lock and no reference, and, unlike Wait, it does not keep Run
// going (an unreferenced watcher, in Revolt's terms). Readiness is a
// hint, as for Wait: the func looks for itself (a peek) and arms the
// watch again if it finds nothing. The zero value is ready to use; an
// armed FDWatch must not be copied.
type FDWatch struct {
	w   ioWaiter
	p   *FD
	d   *fdDir
	fn  func()
	run func() // fn unless Stop came between the wake and the microtask
	due bool   // woken, its microtask queued
}

// Watch arms x to run fn once, on the loop, in a tick where the fd may be
// ready in direction mode (Read or Write); Close, a deadline of that
// direction and a refused registration run it too. It reports false, and
// arms nothing, once Close has begun or the fd has failed. Call it on the
// loop (a fiber or a callback of p's loop); it panics if x is armed.
func (p *FD) Watch(mode Interest, x *FDWatch, fn func()) bool {
	if fn == nil {
		panic("eventloop: FD.Watch called with a nil func")
	}
	if x.w.queued || x.due {
		panic("eventloop: FD.Watch called on an FDWatch that is armed; Stop it first")
	}
	l := p.l
	if !l.InFiber() {
		panic("eventloop: FD.Watch called outside the loop; call it from a fiber or a callback of the FD's loop")
	}
	d := p.dir(mode)
	if p.Closing() || p.errp.Load() != nil || l.closing {
		return false
	}
	x.p, x.d, x.fn = p, d, fn
	if x.run == nil {
		x.run = func() {
			if x.due {
				x.due = false
				x.fn()
			}
		}
	}
	x.w = ioWaiter{watch: x, queued: true}
	d.waiting.Add(1)
	d.ready = append(d.ready, &x.w)
	if p.in&mode == 0 || !p.attached {
		p.in |= mode
		p.markDirty()
	}
	return true
}

// Stop disarms x (its func does not run) and reports whether it was armed;
// on the loop, like Watch.
func (x *FDWatch) Stop() bool {
	if x.due {
		x.due = false
		return true
	}
	if !x.w.queued {
		return false
	}
	x.p.remove(x.d, &x.w)
	return true
}
