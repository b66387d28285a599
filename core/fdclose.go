package core

import (
	"errors"
	"fmt"
)

// Close wakes every waiter (their calls return the closed error), waits
// until the last user has left (from a fiber it suspends, from any other
// goroutine it blocks), deregisters the fd and closes it; it returns once
// the descriptor is closed, with close's error. A second Close returns the
// closed error. After the loop's Close it closes the descriptor as soon as
// the last user has left, without waiting for it.
func (p *FD) Close() error {
	rwait, wwait, ok := p.beginClose()
	if !ok {
		return p.closed
	}
	l := p.l
	if l.IsClosed() {
		return p.closeAfterLoop()
	}
	if l.InFiber() {
		f := l.cur
		if done, err := p.closeStep(ioWaiter{f: f}, rwait, wwait); done {
			return err
		}
		if l.suspendHere(f) {
			p.slow.closer = ioWaiter{}
			return p.closeAfterLoop()
		}
		return p.slow.closeErr
	}
	// An uncaught error from the run this goroutine makes does not end
	// Close: it must not leak the descriptor.
	var err error
	waited := false
	if p.waitGoroutine(func(x *FDWatch) bool {
		done, cerr := p.closeStep(ioWaiter{x: x}, rwait, wwait)
		err, waited = cerr, !done
		return waited
	}, false) == ErrLoopClosed {
		return p.closeAfterLoop()
	}
	if waited {
		return p.slow.closeErr
	}
	return err
}

// closeAfterLoop is Close's end once the loop has been closed meanwhile.
func (p *FD) closeAfterLoop() error {
	if p.state.Load()&(fdClosing|fdRefMask) == fdClosing {
		return p.closeNow()
	}
	return nil // the last Release closes it
}

// closeStep runs on the loop for Close: it wakes every waiter, the lock's
// too, then closes the fd if nobody uses it (true, with close's error),
// else leaves w (the closer) to be woken by the last user's Release.
func (p *FD) closeStep(w ioWaiter, rwait, wwait uint64) (bool, error) {
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		p.wakeSlot(d, false)
		p.disarm(d)
	}
	for range rwait {
		p.passTurn(&p.rd)
	}
	for range wwait {
		p.passTurn(&p.wr)
	}
	if p.state.Load()&(fdClosing|fdRefMask) == fdClosing {
		return true, p.closeNow()
	}
	p.more().closer = w
	p.l.waitBegins(w)
	return false, nil
}

// lastLeft runs where the last user released p after Close began.
func (p *FD) lastLeft() {
	if p.l.IsClosed() {
		_ = p.closeNow()
		return
	}
	p.onLoop(p.closeLast)
}

// closeLast closes the descriptor for the closer waiting for the last
// user; none yet: closeStep, still to come, finds nobody and closes it.
func (p *FD) closeLast() {
	if s := p.slow; s != nil && s.closer != (ioWaiter{}) {
		w := s.closer
		s.closer = ioWaiter{}
		s.closeErr = p.closeNow()
		p.l.wake(w, false)
	}
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
	if p.sysfd < len(l.fds) && l.fds[p.sysfd].pd == p {
		l.fds[p.sysfd].pd = nil
	}
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		p.wakeSlot(d, false)
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
