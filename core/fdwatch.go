package core

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
// and (with OnDeadline) the direction's deadline run it too. It reports
// false, and arms nothing, once Close has begun, the fd has failed, the
// loop is closing, or (with OnDeadline) the deadline has passed. Call it on
// the loop (a fiber or a callback of p's loop); it panics if x is armed or
// a call waits in that direction.
func (p *FD) Watch(mode Interest, x *FDWatch, fn func()) bool {
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

// arm makes x the waiter of d unless the wait would end at once.
func (p *FD) arm(d *fdDir, x *FDWatch) bool {
	if p.Closing() || p.errp.Load() != nil || p.l.closing || x.OnDeadline && d.expired(p.l) {
		return false
	}
	x.p, x.d = p, d
	if x.run == nil {
		x.run = x.fire
	}
	p.park(d, ioWaiter{x: x})
	return true
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
