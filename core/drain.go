package core

import (
	"os"
	"runtime/debug"
)

// The non-nesting drain rule (section 4 of the design).
//
// Exactly one fiber drains the queues: l.cbFiber. When a callback suspends,
// the loop fiber replaces the callback fiber; resuming the suspended fiber F
// is a microtask, run by the current callback fiber X, that switches to F.
// When F's callback returns, F is no longer the callback fiber, so F returns
// (its task ends and control goes back to X, its resumer) instead of going
// on with the queues itself. Without the rule F would run the next microtask,
// resume G inside itself, and so on: N fibers resumed in one tick would nest
// N deep, and the ones at the bottom of the chain would never be resumed
// again (leaked goroutines).
//
// The check runs after every callback and every microtask and costs one
// pointer comparison against self, held in a local; l.nesting (the rule
// switched off, for the core's tests and the bench) is read only when that
// comparison fails.

// invokeCallbacks runs on the loop fiber: it switches to the callback fiber
// while anything is queued, replacing the callback fiber whenever it
// suspends in a callback.
func (l *Loop) invokeCallbacks() {
	for (l.microtasks.len() > 0 || l.callbackQueue.len() > 0) && !l.closing {
		cb := l.cbFiber
		if cb == nil {
			cb = l.spawn(taskDrain)
			l.cbFiber = cb
		}
		l.switchTo(cb)
		if !cb.parked && l.cbFiber == cb {
			l.cbFiber = nil // it suspended inside a callback: replace it
		}
		if l.intr.set {
			l.invokeInterrupt()
		}
	}
}

// drain is the callback fiber's task: microtasks, then each queued callback
// followed by the microtasks it queued, then park until the next tick.
func (l *Loop) drain(self *fiber) {
	for {
		if !l.runMicrotasks(self) {
			return
		}
		for l.callbackQueue.len() > 0 {
			e := l.callbackQueue.pop()
			if e.f != nil {
				if !e.f.suspended {
					continue
				}
				l.resumeIO(e.f)
			} else if e.post != nil {
				l.runPost(e.post)
			} else if c := l.lookup(e.id); c != nil && c.invokable {
				l.runCallback(c)
			} else {
				continue
			}
			// One branch in the common case, as in microtaskBatch.
			if l.cbFiber != self || self.locals != nil || l.intr.set {
				if !l.afterUserRun(self) {
					return
				}
			}
			if l.microtasks.len() > 0 && !l.runMicrotasks(self) {
				return
			}
		}
		if l.tickHere(self) {
			continue
		}
		self.park()
		if l.closing || l.retiring && l.cbFiber == self {
			return
		}
	}
}

// tickHere runs the next tick on the callback fiber instead of parking back
// to the loop fiber, when that tick cannot block and nothing needs the loop
// fiber (Stop, an interrupt for main, RunOnce, Close): the round trip between
// the two would be the largest cost of a tick that only runs defers. It is
// one iteration of loopTask's loop, with previousIdle false.
func (l *Loop) tickHere(self *fiber) bool {
	if l.idle || l.cbFiber != self || l.stopped.Load() || l.closing || l.intr.set || l.mode != runUntilEmpty || l.isEmpty() {
		return false
	}
	l.userRunPauses() // the tick is not the last callback's time
	l.idle = true
	l.tick(false)
	return true
}

// resumeIO switches to f, a fiber that an FD's readiness or timer woke
// (fdwait.go). Out of line, so that drain's frame, which is on the stack
// of every suspended fiber, stays small.
//
//go:noinline
func (l *Loop) resumeIO(f *fiber) {
	l.userRunBegins(kindResume, 0, 0, f, f.created)
	l.switchTo(f)
}

// runMicrotasks runs the microtask queue dry; false means self must return
// (the rule, or Close).
func (l *Loop) runMicrotasks(self *fiber) bool {
	for {
		if ret, done := l.microtaskBatch(self); done {
			return ret
		}
		// A microtask panicked; microtaskBatch has raised it. Carry on from
		// the checks that follow every microtask.
		if !l.afterUserRun(self) {
			return false
		}
	}
}

// microtaskBatch runs microtasks under one deferred recover instead of one
// per microtask (a defer per call is a third of a microtask's cost). After a
// panic it returns (false, false) and runMicrotasks starts a new batch.
func (l *Loop) microtaskBatch(self *fiber) (ret, done bool) {
	defer l.recoverTo(0, 0)
	if l.wd != nil {
		return l.microtaskBatchWatched(self)
	}
	for l.microtasks.len() > 0 {
		t := l.microtasks.pop()
		l.counts.microtasks++
		if t.f != nil {
			if t.f.suspended {
				l.switchTo(t.f)
			}
		} else {
			t.fn()
		}
		// One branch in the common case: still the drainer, no fiber
		// locals to clear, no interrupt.
		if l.cbFiber != self || self.locals != nil || l.intr.set {
			if !l.afterUserRun(self) {
				return false, true
			}
		}
	}
	return true, true
}

// microtaskBatchWatched is microtaskBatch's loop with the watchdog on:
// each microtask, and each resumed fiber, is a watched run. It is kept
// apart so that a loop without the watchdog pays one branch per batch, not
// one per microtask; the two loops must stay the same but for wdBegin.
func (l *Loop) microtaskBatchWatched(self *fiber) (ret, done bool) {
	for l.microtasks.len() > 0 {
		t := l.microtasks.pop()
		l.counts.microtasks++
		if t.f != nil {
			if t.f.suspended {
				l.wdBegin(0, 0, kindResume, t.f, t.f.created)
				l.switchTo(t.f)
			}
		} else {
			l.wdBegin(0, 0, kindMicrotask, self, nil)
			t.fn()
		}
		if l.cbFiber != self || self.locals != nil || l.intr.set {
			if !l.afterUserRun(self) {
				return false, true
			}
		}
	}
	return true, true
}

// afterUserRun follows every callback and microtask whose run left work
// for it: it applies the drain rule (a resumed fiber does not drain),
// clears the fiber's locals and delivers an interrupt; false means self
// must return.
func (l *Loop) afterUserRun(self *fiber) bool {
	if l.cbFiber != self && !l.nesting {
		return false // the rule
	}
	if self.locals != nil {
		clear(self.locals)
	}
	if l.intr.set {
		self.park()
		if l.closing {
			return false
		}
	}
	return true
}

// runCallback retires a one-shot callback (or re-arms a repeat) before
// calling it, so that the callback may re-enable, cancel or register freely.
func (l *Loop) runCallback(c *callback) {
	id, typ := c.id, c.typ
	created := c.created()
	if created != nil {
		l.cur.created = created // tracing: a suspended fiber says whose it is
	}
	stale := l.callbackRuns(typ)
	l.userRunBegins(kindCallback, id, typ, l.cur, created)
	switch typ {
	case TypeDefer:
		fn := c.fn
		l.cancel(c)
		l.call(fn, id, typ)
	case TypeDelay:
		fn := c.fn
		l.timerRuns(c.deadline, stale)
		l.cancel(c)
		l.call(fn, id, typ)
	case TypeRepeat:
		fn := c.fn
		due := c.deadline
		// Re-armed now (now + interval), so it never runs twice in a tick.
		l.disable(c)
		_ = l.Enable(id)        // reads the clock
		l.timerRuns(due, false) // Enable has just read the clock
		l.call(fn, id, typ)
	case TypeReadable, TypeWritable:
		l.callFD(c.fdFn, id, typ, int(c.fd))
	case TypeSignal:
		l.callSignal(c.extra.sigFn, id, c.extra.sig)
	}
}

// The call helpers each defer one recover: a panic in user code becomes an
// *UncaughtError for the error handler (or Run) and the loop goes on.

func (l *Loop) call(fn func(CallbackID), id CallbackID, typ CallbackType) {
	defer l.recoverTo(id, typ)
	fn(id)
}

func (l *Loop) callFD(fn func(CallbackID, int), id CallbackID, typ CallbackType, fd int) {
	defer l.recoverTo(id, typ)
	fn(id, fd)
}

func (l *Loop) callSignal(fn func(CallbackID, os.Signal), id CallbackID, sig os.Signal) {
	defer l.recoverTo(id, TypeSignal)
	fn(id, sig)
}

func (l *Loop) callTask(fn func()) {
	defer l.recoverTo(0, 0)
	fn()
}

func (l *Loop) recoverTo(id CallbackID, typ CallbackType) {
	if r := recover(); r != nil {
		l.raise(uncaught(r, id, typ))
	}
}

// uncaught wraps a panic value; one that already is an *UncaughtError (a
// rethrow from a handler or a nested loop) comes out as is.
func uncaught(r any, id CallbackID, typ CallbackType) *UncaughtError {
	if u, ok := r.(*UncaughtError); ok {
		return u
	}
	return &UncaughtError{Value: r, ID: id, Type: typ, Stack: debug.Stack()}
}

// raise hands an uncaught error to the error handler, in a fiber of its own
// (it may suspend), or, without a handler, to main: it overrides any pending
// interrupt, since hiding an error is worse than losing a value.
func (l *Loop) raise(err error) {
	if l.closing {
		l.closeErrs = append(l.closeErrs, err)
		return
	}
	if l.errHandler == nil {
		l.intr.set = true
		l.intr.uncaught = err
		return
	}
	f := l.spawn(taskHandler)
	f.arg = err
	l.switchTo(f)
}

// handle is the error-handler fiber's task. A panic in the handler comes out
// of Run.
func (l *Loop) handle(f *fiber) {
	l.userRunBegins(kindHandler, 0, 0, f, nil)
	defer func() {
		if r := recover(); r != nil {
			l.intr.set = true
			l.intr.uncaught = uncaught(r, 0, 0)
		}
	}()
	if h := l.errHandler; h != nil {
		h(f.arg)
	} else {
		// The handler was removed while this error waited: nobody else can
		// be told.
		l.intr.set = true
		l.intr.uncaught = f.arg
	}
}
