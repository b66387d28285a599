package core

import (
	"cmp"
	"os"
)

// FDWatch is a func that an FD runs once, on the loop, when a direction may
// be ready, for a layer that waits for a direction without a fiber: a
// connection served only when bytes come (socket's Serve), the watch for a
// client's going while its handler runs (socket's PeerWatch). It takes no
// lock and no reference; it holds the direction's one waiting place, so a
// call does not wait in that direction while it is armed. Readiness is a
// hint, as for Wait: the func looks for itself (a read or a peek) and arms
// the watch again if it finds nothing. The zero value is ready to use; an
// armed FDWatch must not be copied.
type FDWatch struct {
	// Referenced, set before Watch: while armed, the watch keeps Run
	// going, as a wait does (a referenced watcher, in Revolt's terms).
	Referenced bool
	// OnDeadline, set before Watch: the direction's deadline runs the
	// func too (the func sees it in Expired).
	OnDeadline bool

	p   *FD
	d   *fdDir
	fn  func()
	run func() // x.fire, made once: a method value per arm would allocate
	due bool   // woken, its microtask queued
}

// Watch arms x to run fn once, on the loop, in a tick where the fd may be
// ready in direction mode (Read or Write); Close, a refused registration
// and (with OnDeadline) the direction's deadline run it too. It arms
// nothing and says why once Close has begun (the closed error), the fd has
// failed (its error), the loop is closing (ErrLoopClosed), or, with
// OnDeadline, the deadline has passed (os.ErrDeadlineExceeded). Call it on
// the loop (a fiber or a callback of p's loop); it panics if x is armed or
// a call waits in that direction.
func (p *FD) Watch(mode Interest, x *FDWatch, fn func()) error {
	if fn == nil {
		panic("eventloop: FD.Watch called with a nil func")
	}
	if x.armed() {
		panic("eventloop: FD.Watch called on an FDWatch that is armed; Stop it first")
	}
	if !p.l.InFiber() {
		panic("eventloop: FD.Watch called outside the loop; call it from a fiber or a callback of the FD's loop")
	}
	x.fn = fn
	return p.arm(p.dir(mode), x)
}

// arm makes x the waiter of d, or says why the wait would end at once.
func (p *FD) arm(d *fdDir, x *FDWatch) error {
	err := p.after(d)
	if err == os.ErrDeadlineExceeded && !x.OnDeadline {
		err = nil
	}
	if err != nil || p.l.closing {
		return cmp.Or(err, ErrLoopClosed)
	}
	x.p, x.d = p, d
	if x.run == nil {
		x.run = x.fire
	}
	p.park(d, ioWaiter{x: x})
	return nil
}

func (x *FDWatch) armed() bool { return x.due || x.d != nil && x.d.w.x == x }

func (x *FDWatch) fire() {
	if x.due {
		x.due = false
		x.fn()
	}
}

// Stop disarms x (its func does not run) and reports whether it was armed;
// on the loop, like Watch.
func (x *FDWatch) Stop() bool {
	if x.due {
		x.due = false
		return true
	}
	if x.d == nil || x.d.w.x != x {
		return false
	}
	x.p.l.waitEnds(x.p.unpark(x.d))
	return true
}
