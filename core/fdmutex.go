package core

// The part of an FD that any goroutine may touch is one atomic word, as in
// internal/poll's fdMutex: the closing bit, each direction's lock, the
// references of the calls in progress, and per direction the calls waiting
// for its lock. Taking a reference with a lock, handing the lock on and
// leaving as the last user after Close began are each one compare-and-swap,
// so no wake-up falls between two words: an Unlock that counts no waiter is
// one that no waiter can still be counting itself against.
const (
	fdClosing   = 1 << 0
	fdRLock     = 1 << 1
	fdWLock     = 1 << 2
	fdRef       = 1 << 3
	fdRefMask   = (1<<20 - 1) << 3
	fdRWait     = 1 << 23
	fdRWaitMask = (1<<20 - 1) << 23
	fdWWait     = 1 << 43
	fdWWaitMask = (1<<20 - 1) << 43
)

const errTooManyUsers = "eventloop: FD: more than a million calls in progress on one descriptor"

// lockBits are mode's lock bit, its unit of waiters and their mask.
func lockBits(mode Interest) (lock, wait, mask uint64) {
	if mode == Read {
		return fdRLock, fdRWait, fdRWaitMask
	}
	if mode != Write {
		panic("eventloop: FD: the direction must be Read or Write, one of them")
	}
	return fdWLock, fdWWait, fdWWaitMask
}

// Acquire takes a reference for a call; false once Close has begun. The
// descriptor stays open until every reference is released.
func (p *FD) Acquire() bool {
	for {
		old := p.state.Load()
		if old&fdClosing != 0 {
			return false
		}
		if old&fdRefMask == fdRefMask {
			panic(errTooManyUsers)
		}
		if p.state.CompareAndSwap(old, old+fdRef) {
			return true
		}
	}
}

// Release gives back a reference; the last one after Close lets Close
// close the descriptor.
func (p *FD) Release() {
	for {
		old := p.state.Load()
		if old&fdRefMask == 0 {
			panic("eventloop: FD.Release called without a reference (more Releases than Acquires)")
		}
		if p.state.CompareAndSwap(old, old-fdRef) {
			if (old-fdRef)&(fdClosing|fdRefMask) == fdClosing {
				p.lastLeft()
			}
			return
		}
	}
}

// Closing reports whether Close has begun.
func (p *FD) Closing() bool { return p.state.Load()&fdClosing != 0 }

// testHookLockWait, when set, runs in Lock between a caller counting
// itself as a waiter and its wait: where an Unlock can come in between.
var testHookLockWait func()

// Lock takes a reference and the lock of direction mode for one call:
// calls in one direction take turns (two Writes never interleave their
// bytes), as net's do. A call waiting for its turn holds no reference; it
// ends with the closed error once Close begins, or with ErrLoopClosed. As
// in net, a deadline does not end it: the holder's own wait ends at the
// deadline and hands the turn on.
func (p *FD) Lock(mode Interest) error {
	// The common case inlined: the lock free, nobody closing.
	lock := uint64(fdRLock)
	if mode == Write {
		lock = fdWLock
	} else if mode != Read {
		return p.lockSlow(mode) // which panics, naming it
	}
	if old := p.state.Load(); old&(fdClosing|lock) == 0 && old&fdRefMask != fdRefMask &&
		p.state.CompareAndSwap(old, (old|lock)+fdRef) {
		return nil
	}
	return p.lockSlow(mode)
}

func (p *FD) lockSlow(mode Interest) error {
	lock, wait, mask := lockBits(mode)
	var uncaught error
	for {
		old := p.state.Load()
		if old&fdClosing != 0 {
			return p.closed
		}
		n := old + wait
		if old&lock == 0 {
			n = (old | lock) + fdRef
		}
		if n&fdRefMask == 0 || n&mask == 0 && old&lock != 0 {
			panic(errTooManyUsers)
		}
		if !p.state.CompareAndSwap(old, n) {
			continue
		}
		if old&lock == 0 {
			if uncaught != nil {
				// A goroutine whose run ended in an uncaught error
				// reports it, once the turn it was given is handed on.
				p.Unlock(mode)
			}
			return uncaught
		}
		if testHookLockWait != nil {
			testHookLockWait()
		}
		if err := p.awaitTurn(p.dir(mode)); err == ErrLoopClosed {
			return err
		} else if err != nil {
			uncaught = err
		}
	}
}

// Unlock gives up the lock of direction mode and the call's reference,
// and hands the turn to one waiting call, if any.
func (p *FD) Unlock(mode Interest) {
	// The common case inlined: nobody waits for the turn, nobody closing.
	lock, mask := uint64(fdRLock), uint64(fdRWaitMask)
	if mode == Write {
		lock, mask = fdWLock, fdWWaitMask
	} else if mode != Read {
		p.unlockSlow(mode) // which panics, naming it
		return
	}
	if old := p.state.Load(); old&(fdClosing|lock|mask) == lock && old&fdRefMask != 0 &&
		p.state.CompareAndSwap(old, old&^lock-fdRef) {
		return
	}
	p.unlockSlow(mode)
}

func (p *FD) unlockSlow(mode Interest) {
	lock, wait, mask := lockBits(mode)
	for {
		old := p.state.Load()
		if old&lock == 0 || old&fdRefMask == 0 {
			panic("eventloop: FD.Unlock called on a direction that is not locked")
		}
		n := old&^lock - fdRef
		if old&mask != 0 {
			n -= wait
		}
		if !p.state.CompareAndSwap(old, n) {
			continue
		}
		if old&mask != 0 {
			d := p.dir(mode)
			p.onLoop(func() { p.passTurn(d) })
		}
		if n&(fdClosing|fdRefMask) == fdClosing {
			p.lastLeft()
		}
		return
	}
}

// beginClose sets the closing bit, once, and takes every lock waiter off
// the count: closeStep wakes them all, and they find the bit.
func (p *FD) beginClose() (rwait, wwait uint64, ok bool) {
	for {
		old := p.state.Load()
		if old&fdClosing != 0 {
			return 0, 0, false
		}
		if p.state.CompareAndSwap(old, (old|fdClosing)&^(fdRWaitMask|fdWWaitMask)) {
			return (old & fdRWaitMask) / fdRWait, (old & fdWWaitMask) / fdWWait, true
		}
	}
}

// turns is a direction's counting semaphore, on the loop: a turn passed
// (passTurn) may come before the wait it is for (awaitTurn), as an Unlock
// may come between a caller counting itself and its wait.
type turns struct {
	free int32      // passed, not yet taken
	q    []ioWaiter // first come, first served
}

func (p *FD) turnsOf(d *fdDir) *turns { return &p.more().turns[p.side(d)] }

func (p *FD) awaitTurn(d *fdDir) error {
	l := p.l
	if !l.InFiber() {
		// It does not give the wait up on an uncaught error: the turn
		// it may be passed meanwhile would be lost (Lock hands it on).
		return p.waitGoroutine(func(x *FDWatch) bool { return p.queueTurn(d, ioWaiter{x: x}) }, false)
	}
	f := l.cur
	if p.queueTurn(d, ioWaiter{f: f}) && l.suspendHere(f) {
		t := p.turnsOf(d)
		for i, w := range t.q {
			if w.f == f {
				t.q = append(t.q[:i], t.q[i+1:]...)
				break
			}
		}
		return ErrLoopClosed
	}
	return nil
}

// queueTurn takes a turn passed already (false) or queues w for the next.
func (p *FD) queueTurn(d *fdDir, w ioWaiter) bool {
	t := p.turnsOf(d)
	if t.free > 0 {
		t.free--
		return false
	}
	t.q = append(t.q, w)
	p.l.waitBegins(w)
	return true
}

func (p *FD) passTurn(d *fdDir) {
	t := p.turnsOf(d)
	if len(t.q) == 0 {
		t.free++
		return
	}
	w := t.q[0]
	t.q[0] = ioWaiter{}
	t.q = t.q[1:]
	p.l.wake(w, false)
}
