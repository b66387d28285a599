package core

import "sync/atomic"

// The diagnostics seam. The scheduler tells the diagnostics (the watchdog,
// watchdog.go; the metrics and counters, metrics.go; tracing, Dump and the
// deadlock report, dump.go) what happens at the points below, and they see
// the loop through nothing else:
//
//	runStarts, loopCloses            a run begins; Close is done
//	tickBegins, waitEnded, clockRead the tick: counted, its wait, its clock
//	callbackMade                     a callback is registered
//	callbackRuns, timerRuns          a callback runs; a timer's lateness
//	userRunBegins, userRunPauses     user code begins on a fiber; none runs
//	fiberStarts                      a fiber's goroutine begins
//	fiberSuspends, fiberResumed      a fiber waits; it goes on
//
// All but timerRuns, waitEnded and loopCloses (each has a clock read, a
// syscall or a Close beside it) are inlined: with the watchdog off, each
// costs one predictable branch, or a counter, as the code it stands for
// did: userRunBegins and userRunPauses test one atomic word that tells
// whether the watchdog or the blocked-call sampler (blocked.go) needs
// them, in place of the watchdog's pointer. One place tests l.wd itself:
// microtaskBatch, once per batch, so that a microtask pays nothing
// (drain.go).

// runStarts: Run, RunOnce or a main Suspend is about to run the loop.
func (l *Loop) runStarts() {
	if l.wd != nil || l.blk != nil {
		l.observerStart()
	}
}

// observerStart starts (or wakes) the watchdog and the blocked-call
// sampler.
func (l *Loop) observerStart() {
	if l.wd != nil {
		l.wdStart()
	}
	if l.blk != nil {
		l.blockedStart()
	}
	if atomic.LoadUint32(&l.obs)&blkBits != 0 {
		l.blockedRunEnds()
	}
}

// loopCloses: Close has unwound every fiber; the metrics take their final
// values.
func (l *Loop) loopCloses() {
	if l.wd != nil {
		l.wdStop()
	}
	if l.blk != nil {
		l.blockedStop()
	}
	l.publish(l.now(), false)
}

// fiberStarts: f's goroutine has begun, on its way to its first task.
func (l *Loop) fiberStarts(f *fiber) {
	if l.wd != nil {
		f.gid = goid() // what a report of the watchdog names
	}
}

// callbackMade: c has just been registered; with tracing it records
// where (Dump and the deadlock report print it).
func (l *Loop) callbackMade(c *callback) {
	if l.trace {
		c.more().created = callers()
	}
}

// userRunBegins: user code is about to run on fiber f: a callback (id and
// typ), a microtask, a resumed fiber, a post or the error handler (kind).
// created is where a callback was registered, with tracing.
func (l *Loop) userRunBegins(kind runKind, id CallbackID, typ CallbackType, f *fiber, created []uintptr) {
	l.clockStale = true
	if atomic.LoadUint32(&l.obs) != 0 {
		l.observeRunBegins(kind, id, typ, f, created)
	}
}

// observeRunBegins is userRunBegins for the watchdog and the sampler, out
// of line: one call keeps userRunBegins inlined.
func (l *Loop) observeRunBegins(kind runKind, id CallbackID, typ CallbackType, f *fiber, created []uintptr) {
	if l.wd != nil {
		l.wdBegin(id, typ, kind, f, created)
	}
	if atomic.LoadUint32(&l.obs)&blkBits != 0 {
		l.blockedRunEnds()
	}
}

// userRunPauses: no user code runs now: the fiber that ran it suspended or
// parked, its task ended, or the tick has moved on.
func (l *Loop) userRunPauses() {
	if atomic.LoadUint32(&l.obs) != 0 {
		l.observeRunPauses()
	}
}

// observeRunPauses is userRunPauses for the watchdog and the sampler.
func (l *Loop) observeRunPauses() {
	if l.wd != nil {
		l.wdIdle()
	}
	if atomic.LoadUint32(&l.obs)&blkBits != 0 {
		l.blockedRunEnds()
	}
}

// fiberSuspends and fiberResumed bracket a fiber suspended through its
// Suspension or an FD's wait (Metrics.FibersSuspended).
func (l *Loop) fiberSuspends() {
	l.counts.suspended++
	l.userRunPauses()
}

func (l *Loop) fiberResumed() { l.counts.suspended-- }

// callbackRuns: a callback of type typ is about to run (userRunBegins
// follows). It counts it by type and reports whether user code ran since
// the tick last read the clock, for timerRuns.
func (l *Loop) callbackRuns(typ CallbackType) (stale bool) {
	l.counts.byType[typ&7]++
	return l.clockStale
}

// timerRuns records how late a Delay runs. The clock is read again only
// if user code ran since the tick found the timers due (stale): the first
// timer of a tick is measured against the latest reading, at no cost (a
// tick reads the clock only for a timer not known to be due, so that
// reading can be the Delay call's own, in the callback before), and a
// timer made late by the callbacks before it in the same tick reads the
// clock. (With the watchdog on, userRunBegins has just read it.)
func (l *Loop) timerRuns(deadline int64, stale bool) {
	now := l.lastNow
	if stale && l.wd == nil {
		now = l.now()
	}
	l.m.lateness.record(now - deadline)
}

// tickBegins counts a tick and publishes the metrics every publishEvery
// ticks of a loop that does not block.
func (l *Loop) tickBegins() {
	l.counts.ticks++
	if l.counts.ticks%publishEvery == 0 {
		l.publishNow()
	}
}

// waitEnded: the driver's Wait returned n events; it blocked since slept
// (idle time), if blocked.
func (l *Loop) waitEnded(blocked bool, slept int64, n int) {
	if blocked {
		l.idleSince(slept)
		if atomic.LoadUint32(&l.obs)&blkBits != 0 {
			l.blockedRunEnds()
		}
	}
	l.counts.fdEvents += uint64(n)
}

// clockRead: the tick has read the clock (lastNow) to find the timers due;
// no user code has run since.
func (l *Loop) clockRead() { l.clockStale = false }
