package core

import (
	"fmt"
	"runtime"
	"strings"
)

// What a person debugging a stuck program reads: the deadlock report that
// Run and a main Suspend return, and Dump. Both find where each suspended
// fiber waits by switching to it once with a probe flag.

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
		f.stack = ""
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

// probed answers a deadlock report's probes, which want to know where f
// waits: f records its stack and suspends again, until it is resumed for
// real.
func (l *Loop) probed(f *fiber) {
	for f.probe {
		f.probe = false
		f.stack = string(stackOf())
		f.yield(struct{}{})
	}
}
