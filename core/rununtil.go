package core

import (
	"fmt"
	"sync"
	"time"
)

// RunUntil runs the loop until done is closed, for a goroutine that needs
// the loop to make progress and may or may not be the one that runs it (a
// blocking call of package socket from main, or from any goroutine). Unlike
// Run it is safe from any goroutine: if another goroutine runs the loop,
// RunUntil waits until done is closed or that run ends, and then runs the
// loop itself if done is still open. It returns nil once done is closed,
// ErrLoopClosed if the loop is (or gets) closed, an *UncaughtError that no
// error handler took during its own run, and an error wrapping ErrDeadlock
// if its run ran out of referenced callbacks before done was closed (then
// nothing would ever close it). From a callback of the loop it returns
// ErrLoopRunning: a fiber waits with a Suspension instead.
func (l *Loop) RunUntil(done <-chan struct{}) error {
	if l.InFiber() {
		return ErrLoopRunning
	}
	for {
		select {
		case <-done:
			return nil
		default:
		}
		if l.closedFlag.Load() {
			return ErrLoopClosed
		}
		ended := l.runEnds.wait()
		// untilRun goes up before the claim, so that a Close that finds
		// the loop claimed never misses that RunUntil holds it. It counts
		// claims: a goroutine whose claim fails takes back its own, not
		// the one of the goroutine whose run holds the loop.
		l.untilRun.Add(1)
		if l.entered.CompareAndSwap(false, true) {
			err := l.runEntered(done)
			l.untilRun.Add(-1)
			if err != nil {
				return err
			}
			select {
			case <-done:
				return nil
			default:
			}
			if l.stopped.Load() {
				continue // someone else's Stop ended this run, not done
			}
			return fmt.Errorf("%w: RunUntil: the loop ran out of referenced callbacks before done was closed", ErrDeadlock)
		}
		l.untilRun.Add(-1)
		select {
		case <-done:
			return nil
		case <-l.Done():
			return ErrLoopClosed
		case <-ended:
		}
	}
}

// takeFromRunUntil is Close's way past a run made in RunUntil: no new run
// may start (closedFlag), the current one stops, and Close claims the loop
// when it ends. It reports false when the loop runs otherwise (Run, or the
// caller is a fiber).
func (l *Loop) takeFromRunUntil() bool {
	if l.untilRun.Load() == 0 || l.InFiber() {
		return false
	}
	l.closedFlag.Store(true)
	for {
		ended := l.runEnds.wait()
		if l.entered.CompareAndSwap(false, true) {
			return true
		}
		if l.untilRun.Load() == 0 {
			// An owner's Run got in between: it is not ours to stop.
			l.closedFlag.Store(false)
			return false
		}
		// Stop, without its closedFlag check (the driver is still open),
		// and again until the run ends: a run just starting clears it.
		l.stopped.Store(true)
		_ = l.driver.Wakeup()
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ended:
		case <-t.C:
		}
		t.Stop()
	}
}

// stopWhenDone makes the current run stop once done is closed, and returns
// the function that ends the goroutine watching it.
func (l *Loop) stopWhenDone(done <-chan struct{}) (cancel func()) {
	gen := l.runGen
	finished := make(chan struct{})
	go func() {
		select {
		case <-done:
			// Stop this run only: by the time the post runs, another run
			// (another goroutine's) may have begun.
			_ = l.Post(func() {
				if l.runGen == gen {
					l.Stop()
				}
			})
		case <-finished:
		}
	}()
	return func() { close(finished) }
}

// runEnds tells goroutines waiting in RunUntil that a run has ended, so
// that one of them may take the loop over.
type runEnds struct {
	mu sync.Mutex
	ch chan struct{}
}

func (r *runEnds) wait() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch == nil {
		r.ch = make(chan struct{})
	}
	return r.ch
}

func (r *runEnds) signal() {
	r.mu.Lock()
	if r.ch != nil {
		close(r.ch)
		r.ch = nil
	}
	r.mu.Unlock()
}
