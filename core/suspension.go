package core

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

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
	l.m.suspended++
	if l.wd != nil {
		l.wdIdle() // a suspended callback is not running
	}
	f.yield(struct{}{})
	if f.probe {
		l.probed(f)
	}
	f.suspended = false
	l.m.suspended--
	return l.closing
}

// probed answers a deadlock report's probes, which want to know where f
// waits: f records its stack and suspends again, until it is resumed for
// real.
func (l *Loop) probed(f *fiber) {
	for f.probe {
		f.probe = false
		f.stack = stackOf()
		f.yield(struct{}{})
	}
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
	l.m.suspended++
	if l.wd != nil {
		l.wdIdle() // a suspended callback is not running
	}
	f.yield(struct{}{})
	if f.probe {
		l.probed(f)
	}
	f.suspended = false
	l.m.suspended--
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
	if l.wd != nil {
		l.wdStart()
	}
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

// deadlockError lists where every suspended fiber waits.
func (l *Loop) deadlockError() error {
	n, report := l.report()
	switch n {
	case 0:
		return fmt.Errorf("%w (a fiber deadlock, or an unreferenced or cancelled callback); no fiber suspended", ErrDeadlock)
	case 1:
		return fmt.Errorf("%w (a fiber deadlock, or an unreferenced or cancelled callback); 1 fiber suspended:%s", ErrDeadlock, report)
	}
	return fmt.Errorf("%w (a fiber deadlock, or an unreferenced or cancelled callback); %d fibers suspended:%s", ErrDeadlock, n, report)
}

// report describes the suspended fibers (where each waits: each is switched
// to once with a probe flag, records its own stack and suspends again) and,
// with tracing, where each callback still registered and each fiber's
// callback were created.
func (l *Loop) report() (suspended int, text string) {
	var b strings.Builder
	for f := l.fibers.head; f != nil; f = f.succ {
		if !f.suspended {
			continue
		}
		f.probe = true
		l.switchTo(f)
		suspended++
		fmt.Fprintf(&b, "\n\nfiber %d suspended:\n%s", f.id, f.stack)
		if f.created != nil {
			b.WriteString("\nin a callback created at:")
			writeFrames(&b, f.created)
		}
		f.stack = nil
	}
	if l.trace {
		l.eachCallback(func(c *callback) {
			fmt.Fprintf(&b, "\n\ncallback %s (%s, enabled=%v, referenced=%v) created at:", c.id, c.typ, c.enabled, c.referenced)
			writeFrames(&b, c.created())
		})
	}
	return suspended, b.String()
}

func writeFrames(b *strings.Builder, pcs []uintptr) {
	frames := runtime.CallersFrames(pcs)
	for {
		fr, more := frames.Next()
		if fr.Function != "" {
			fmt.Fprintf(b, "\n\t%s\n\t\t%s:%d", fr.Function, fr.File, fr.Line)
		}
		if !more {
			break
		}
	}
}

func stackOf() []byte {
	buf := make([]byte, 8<<10)
	return buf[:runtime.Stack(buf, false)]
}

// Dump describes the loop for a person debugging a stuck program: its
// counters, every callback still registered, and where every suspended fiber
// waits; with WithTracing (or EVENTLOOP_DEBUG_TRACE=1) also where each
// callback, and the callback each suspended fiber runs, was created. Call it
// from main or from a callback.
func (l *Loop) Dump() string {
	if l.closed {
		return "eventloop: closed"
	}
	var b strings.Builder
	st := l.Stats()
	fmt.Fprintf(&b, "eventloop: driver %s, running=%v, %d ticks, %d callbacks run, %d microtasks, %d fibers started, %d live",
		l.driver.Name(), l.IsRunning(), st.Ticks, st.Callbacks, st.Microtasks, st.FibersStarted, st.FibersLive)
	if !l.trace {
		l.eachCallback(func(c *callback) {
			fmt.Fprintf(&b, "\ncallback %s (%s, enabled=%v, referenced=%v)", c.id, c.typ, c.enabled, c.referenced)
		})
	}
	var text string
	if l.cur != nil {
		_, text = l.report()
	} else {
		// Probing switches to fibers: from main that is the proxy's work.
		l.enter(opDump)
		text, l.dump = l.dump, ""
	}
	b.WriteString(text)
	return b.String()
}
