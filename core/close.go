package core

import (
	"errors"
	"fmt"
)

// Close ends the loop for good. It runs what was posted before it, then
// unwinds every fiber still suspended (Suspend returns ErrLoopClosed and the
// fiber's deferred calls run), ends every fiber goroutine and signal
// goroutine, and closes the driver: no goroutine of the loop outlives it.
// Panics raised while unwinding come back joined in the error. A second
// Close returns nil. Close from inside the loop (a callback or a fiber)
// returns an error wrapping ErrLoopRunning: Stop the loop, and Close after
// Run returns. A run that a goroutine made in RunUntil (a blocked socket
// call) is not the owner's: Close stops it, waits for it to end, and the
// RunUntil returns ErrLoopClosed.
func (l *Loop) Close() error {
	if l.closed {
		return nil
	}
	if !l.entered.CompareAndSwap(false, true) && !l.takeFromRunUntil() {
		return fmt.Errorf("%w: Close called while the loop runs (from a callback or another goroutine); Stop it and Close after Run returns", ErrLoopRunning)
	}
	defer l.entered.Store(false)
	l.postMu.Lock()
	l.postShut = true
	l.postMu.Unlock()
	l.closedFlag.Store(true)
	l.doneOnce.Do(l.initDone)
	close(l.done)
	l.enter(opClose)
	l.loopCloses()
	err := l.driver.Close()
	if err != nil {
		err = fmt.Errorf("eventloop: closing the %s driver: %w", l.driver.Name(), err)
	}
	errs := append(l.closeErrs, err)
	l.closed = true
	l.dropReferences()
	return errors.Join(errs...)
}

// Done returns a channel that is closed when Close begins. Like Post, it
// is safe from any goroutine: a goroutine blocked on work of the loop
// (package socket) selects on it to learn that the work will never come.
func (l *Loop) Done() <-chan struct{} {
	l.doneOnce.Do(l.initDone)
	return l.done
}

func (l *Loop) initDone() { l.done = make(chan struct{}) }

// IsClosed reports whether Close has begun. Like Post, it is safe from any
// goroutine: a process-wide holder of a loop (eventloop.Default) asks it to
// replace a loop that someone closed.
func (l *Loop) IsClosed() bool { return l.closedFlag.Load() }

func (l *Loop) shutdown() {
	// Post's promise: what was accepted runs.
	for l.postWaiting.Load() || l.postQueued > 0 {
		f := l.spawn(taskPosts)
		l.switchTo(f)
	}
	l.closing = true
	if l.awaitCancel != nil {
		l.awaitCancel()
	}
	l.cbFiber = nil // every fiber that drains now returns at once
	for f := l.fibers.head; f != nil; f = l.fibers.head {
		l.switchTo(f)
		f.stop()
	}
	l.loopFiber = nil
	l.signals.stopAll()
	l.awaitWG.Wait()
}

// drainPostsAtClose runs the posts left at Close, one at a time, with the
// microtasks they queue. A post that suspends is unwound with the others.
func (l *Loop) drainPostsAtClose() {
	l.takePosts()
	for l.callbackQueue.len() > 0 && !l.closing {
		e := l.callbackQueue.pop()
		if e.post == nil {
			continue // a callback of a tick that Stop cut short: it will not run
		}
		l.runPost(e.post)
		for l.microtasks.len() > 0 {
			t := l.microtasks.pop()
			if t.f != nil {
				if t.f.suspended {
					l.switchTo(t.f)
				}
			} else {
				l.callTask(t.fn)
			}
		}
	}
}

// dropReferences drops every reference the loop holds, so that a closed loop that
// is still referenced keeps no user closures alive.
func (l *Loop) dropReferences() {
	l.pages, l.nslots, l.free = nil, 0, nil
	l.enableQueue, l.enableDeferQueue = nil, nil
	l.callbackQueue.reset()
	l.microtasks.reset()
	l.runners.reset()
	l.timers = nil
	l.fds = nil
	l.pool = nil
	l.mainSusp = nil
	l.pendingErrs = nil
	l.closeErrs = nil
	l.intr = interrupt{}
}
