package core

import "errors"

// Suspension suspends the fiber that took it (Loop.Suspension) until it is
// resumed. In a callback, Suspend switches back to the loop, which replaces
// the callback fiber; Resume and Throw queue a microtask that switches to the
// suspended fiber. From main, Suspend runs the loop until the suspension is
// resumed.
type Suspension struct {
	l       *Loop
	f       *fiber // nil: main
	fid     uint64 // f.id when taken: a pooled goroutine is a new fiber
	pending bool
	dead    bool   // a main suspension that an uncaught error ended
	epoch   uint64 // counts Suspend calls, so a late cancellation finds nothing
}

// Suspension returns the current fiber's suspension: the same value for as
// long as the fiber lives (main's until an uncaught error ends a Suspend).
func (l *Loop) Suspension() *Suspension {
	if f := l.cur; f != nil {
		if f.susp == nil {
			f.susp = &Suspension{l: l, f: f, fid: f.id}
		}
		return f.susp
	}
	if l.mainSusp == nil {
		l.mainSusp = &Suspension{l: l}
	}
	return l.mainSusp
}

// suspendHere suspends f, the running fiber, until something switches to
// it again: a Resume's microtask, or an FD's readiness (fdwait.go). It
// reports whether the loop is closing (Close unwinds the fiber).
func (l *Loop) suspendHere(f *fiber) bool {
	f.suspended = true
	l.fiberSuspends()
	f.yield(struct{}{})
	if f.probe {
		l.probed(f)
	}
	f.suspended = false
	l.fiberResumed()
	return l.closing
}

// errDeadMain is what Suspend returns on a main suspension that an uncaught
// error ended.
var errDeadMain = errors.New("eventloop: Suspend called on a main Suspension after an uncaught error ended its last Suspend; take a new one from Loop.Suspension")

// Suspend suspends the current fiber until Resume (it returns the value) or
// Throw (it returns the error). It panics if called twice without a resume,
// or from a fiber other than the one that took the suspension. In a fiber
// that Close unwinds it returns ErrLoopClosed.
func (s *Suspension) Suspend() (any, error) {
	if s.f == nil {
		return s.suspendMain()
	}
	l, f := s.l, s.f
	if l.closing || l.closed {
		return nil, ErrLoopClosed
	}
	if s.pending {
		panic("eventloop: Suspend called on a Suspension that is already suspended; Resume or Throw it first")
	}
	if l.cur != f || f.id != s.fid {
		panic("eventloop: Suspend called from a fiber other than the one that took the Suspension")
	}
	s.pending = true
	s.epoch++
	// suspendHere, written out: the cycle of a Suspend and a Resume is
	// the scheduler's hot path, and a call more costs it 7% (benchstat).
	f.suspended = true
	l.fiberSuspends()
	f.yield(struct{}{})
	if f.probe {
		l.probed(f)
	}
	f.suspended = false
	l.fiberResumed()
	if l.closing {
		s.pending = false
		return nil, ErrLoopClosed
	}
	v, err := f.val, f.err
	f.val, f.err = nil, nil
	return v, err
}

func (s *Suspension) suspendMain() (any, error) {
	l := s.l
	if s.dead {
		return nil, errDeadMain
	}
	if l.closed {
		return nil, ErrLoopClosed
	}
	if s.pending {
		panic("eventloop: Suspend called on a Suspension that is already suspended; Resume or Throw it first")
	}
	if l.cur != nil {
		panic("eventloop: Suspend called from a fiber other than the one that took the Suspension (it is main's)")
	}
	if !l.entered.CompareAndSwap(false, true) {
		panic("eventloop: Suspend called on main's Suspension while the loop runs on another goroutine")
	}
	defer l.entered.Store(false)
	s.pending = true
	s.epoch++
	l.mainWait = s
	l.runStarts()
	l.enter(opRun)
	l.mainWait = nil
	intr, deadlock := l.mainIntr, l.mainDeadlock
	l.mainIntr, l.mainDeadlock = interrupt{}, nil
	if s.pending {
		s.pending = false
		s.dead = true
		if l.mainSusp == s {
			l.mainSusp = nil
		}
		if intr.uncaught != nil {
			return nil, intr.uncaught
		}
		return nil, deadlock
	}
	if intr.uncaught != nil {
		return nil, intr.uncaught
	}
	return intr.val, intr.err
}

// Resume resumes the suspended fiber with v (Suspend returns v, nil). It
// panics if the suspension is not suspended; on a main suspension that an
// uncaught error ended it does nothing.
func (s *Suspension) Resume(v any) { s.wake(v, nil, "Resume") }

// Throw resumes the suspended fiber with err (Suspend returns nil, err). It
// panics if err is nil or the suspension is not suspended.
func (s *Suspension) Throw(err error) {
	if err == nil {
		panic("eventloop: Throw called with a nil error")
	}
	s.wake(nil, err, "Throw")
}

func (s *Suspension) wake(v any, err error, method string) {
	if s.dead {
		return // a spurious resume of a main suspension that is over
	}
	if !s.pending {
		panic("eventloop: " + method + " called on a Suspension that is not suspended")
	}
	s.pending = false
	l := s.l
	if s.f == nil {
		l.intr.set = true
		l.intr.val, l.intr.err = v, err
		return
	}
	s.f.val, s.f.err = v, err
	if !l.closing && !l.closed {
		l.microtasks.push(task{f: s.f})
	}
}
