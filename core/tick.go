package core

import (
	"fmt"
	"time"
)

// loopTask is the loop fiber: it runs ticks until Stop, or until no enabled
// referenced callback (nor post) is left. Main switches to it from Run or a
// main Suspend; it parks to hand main an interrupt (a resumed main
// suspension, or an uncaught error) and carries on when main comes back.
// The callback fiber runs the ticks that cannot block itself (tickHere in
// drain.go), so this loop turns once per blocking tick, Stop, interrupt or
// replaced callback fiber, not once per tick.
func (l *Loop) loopTask() {
	l.stopped.Store(false)
	l.runBegins()
	l.invokeCallbacks()
	for !l.stopped.Load() && !l.closing {
		if l.intr.set {
			l.invokeInterrupt()
			continue
		}
		if l.isEmpty() {
			break
		}
		previousIdle := l.idle
		l.idle = true
		l.tick(previousIdle)
		l.invokeCallbacks()
		if l.mode != runUntilEmpty {
			break
		}
	}
	l.retireCallbackFiber()
	l.loopFiber = nil
	l.runPauses()
}

func (l *Loop) isEmpty() bool {
	return l.live == 0 && l.ioWaiters == 0 && l.awaiting == 0 && l.postQueued == 0 && !l.postWaiting.Load()
}

// invokeInterrupt parks the loop fiber, handing l.intr to main. An
// uncaught error ends Run, so the run's time stops meanwhile; a resumed
// main Suspend does not end the run (metrics.go).
func (l *Loop) invokeInterrupt() {
	if l.intr.uncaught == nil {
		l.publish(l.lastNow, false)
		l.cur.park()
		return
	}
	l.runPauses()
	l.cur.park()
	l.runBegins()
}

// tick is one turn of the loop, as Revolt's AbstractDriver::tick: activate
// what was enabled during the last tick, queue the defers, and wait for I/O,
// signals and timers — blocking only if the previous tick was idle.
func (l *Loop) tick(previousIdle bool) {
	l.tickBegins()
	l.activate()
	l.callbackQueue.reserve(len(l.enableDeferQueue))
	for _, q := range l.enableDeferQueue {
		if c := l.lookup(q.id); c != nil && c.enq == q.enq {
			c.enq++
			c.invokable = true
			l.enqueue(c)
		}
	}
	clear(l.enableDeferQueue)
	l.enableDeferQueue = l.enableDeferQueue[:0]
	l.takePosts()
	l.flushErrors()

	blocking := (previousIdle || l.mode != runUntilEmpty) && !l.stopped.Load() && !l.isEmpty() && l.mode != runOneTickNoWait
	if blocking {
		l.invokeCallbacks()
		if len(l.enableDeferQueue) > 0 || len(l.enableQueue) > 0 || l.stopped.Load() || l.closing || l.isEmpty() {
			blocking = false
		}
	}
	l.dispatch(blocking)
}

// activate makes what was enabled since the last tick active: timers into
// the heap, watchers onto their fd, signal watchers onto their signal.
func (l *Loop) activate() {
	q := l.enableQueue
	for i := range q {
		c := l.lookup(q[i].id)
		if c == nil || c.enq != q[i].enq {
			continue // disabled, re-enabled later in the queue, or cancelled
		}
		c.enq++
		c.active = true
		c.invokable = true
		switch c.typ {
		case TypeDelay, TypeRepeat:
			l.timerSeq++
			c.seq = l.timerSeq
			l.timers.push(c)
		case TypeReadable, TypeWritable:
			l.activateFD(c)
		case TypeSignal:
			l.activateSignal(c)
		}
	}
	clear(q)
	l.enableQueue = q[:0]
}

func (l *Loop) deactivate(c *callback) {
	c.active = false
	switch c.typ {
	case TypeDelay, TypeRepeat:
		if c.heapIdx >= 0 {
			l.timers.remove(c)
		}
	case TypeReadable, TypeWritable:
		l.deactivateFD(c)
	case TypeSignal:
		l.deactivateSignal(c)
	}
}

func (l *Loop) enqueue(c *callback) {
	l.callbackQueue.push(entry{id: c.id})
	l.idle = false
}

// dispatch queues what is ready: signals, then fds, then expired timers (the
// order of Revolt's StreamSelectDriver). It calls the driver only if an fd
// is watched or the tick may block: a busy loop without fds makes no
// syscall.
func (l *Loop) dispatch(blocking bool) {
	if l.dispatchSignals() {
		blocking = false
	}
	if len(l.ioDirty) > 0 {
		l.flushIO()
	}
	var timeout time.Duration
	if blocking {
		timeout = l.timeout()
	}
	if l.watching > 0 || timeout != 0 {
		blocks, slept := timeout != 0, int64(0)
		if blocks {
			// The metrics are published before every blocking wait, and
			// the wait counts as idle time.
			slept = l.now()
			l.publish(slept, true)
			l.sleeping.Store(true)
			// A post, signal or Stop that came before the flag was set did
			// not wake the driver: do not block past it.
			if l.postWaiting.Load() || l.signals.flag.Load() || l.stopped.Load() {
				timeout = 0
			}
		}
		if l.watching > 0 {
			timeout = l.sweepBefore(timeout, slept)
		}
		if l.microtasks.len() > 0 {
			// An FD that failed in flushIO or the sweep (closed behind
			// the loop's back) woke its waiters (FD.fail): they run now.
			timeout = 0
		}
		n, err := l.driver.Wait(l.events, timeout)
		l.sleeping.Store(false)
		l.waitEnded(blocks, slept, n)
		if err != nil {
			l.waitFailed(err)
			return
		}
		l.dispatchEvents(l.events[:n])
		l.dispatchSignals()
	}
	// The clock is read only for a timer not known to be due already (a
	// clock read is a third of a Delay(0) here): the clock is monotonic.
	now, fresh := l.lastNow, false
	for len(l.timers) > 0 {
		c := l.timers[0]
		if c.deadline > now {
			if fresh {
				break
			}
			now, fresh = l.now(), true
			continue
		}
		l.timers.remove(c)
		if c.typ == typeIOTimer {
			c.fn(0) // an FD direction's deadline (fddeadline.go)
			continue
		}
		c.active = false
		l.enqueue(c)
	}
	l.clockRead()
	l.flushErrors()
}

// waitFailed stops the loop after the driver's Wait failed: a driver that
// cannot wait cannot run the loop; it says so once instead of spinning.
// Out of line, so that dispatch's frame stays small (see the epoll
// driver's Wait).
//
//go:noinline
func (l *Loop) waitFailed(err error) {
	l.stopped.Store(true)
	l.raise(&UncaughtError{Value: fmt.Errorf("%s driver: wait: %w", l.driver.Name(), err)})
}

// timeout is how long the tick may block: until the next timer, or forever.
func (l *Loop) timeout() time.Duration {
	if len(l.timers) == 0 {
		return -1
	}
	d := time.Duration(l.timers[0].deadline - l.now())
	if d <= 0 {
		return 0
	}
	return d
}

// retireCallbackFiber sends the idle callback fiber to the pool when a run
// ends, so that no fiber stays live between runs.
func (l *Loop) retireCallbackFiber() {
	cb := l.cbFiber
	if cb == nil || l.closing || !cb.parked {
		return
	}
	l.retiring = true
	l.switchTo(cb)
	l.retiring = false
	l.cbFiber = nil
}

// flushErrors reports the fd errors found while activating or dispatching.
func (l *Loop) flushErrors() {
	for len(l.pendingErrs) > 0 {
		err := l.pendingErrs[0]
		l.pendingErrs = l.pendingErrs[1:]
		l.raise(err)
	}
	l.pendingErrs = nil
}
