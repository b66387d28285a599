package core

import (
	"fmt"
	"math"
	"os"
	"time"
)

// Queue runs fn as a microtask: after the current callback (or microtask)
// and before the next one.
func (l *Loop) Queue(fn func()) {
	if fn == nil {
		panic("eventloop: Queue called with a nil func")
	}
	l.mustOpen("Queue")
	l.microtasks.push(task{fn: fn})
}

// Defer runs fn in the next tick, after the defers enabled before it.
func (l *Loop) Defer(fn func(id CallbackID)) CallbackID {
	if fn == nil {
		panic("eventloop: Defer called with a nil func")
	}
	l.mustOpen("Defer")
	c := l.add(TypeDefer)
	c.fn = fn
	l.queueEnable(c)
	return c.id
}

// Delay runs fn once, d after this call (never earlier). It panics if d < 0.
func (l *Loop) Delay(d time.Duration, fn func(id CallbackID)) CallbackID {
	return l.timer(TypeDelay, "Delay", d, fn)
}

// Repeat runs fn every d, the first time d after this call. The next run is
// armed (now + d) before fn runs, so it never runs twice in one tick. It
// panics if d < 0.
func (l *Loop) Repeat(d time.Duration, fn func(id CallbackID)) CallbackID {
	return l.timer(TypeRepeat, "Repeat", d, fn)
}

func (l *Loop) timer(typ CallbackType, method string, d time.Duration, fn func(CallbackID)) CallbackID {
	if d < 0 {
		panic(fmt.Sprintf("eventloop: %s called with a negative duration %v", method, d))
	}
	if fn == nil {
		panic("eventloop: " + method + " called with a nil func")
	}
	l.mustOpen(method)
	c := l.add(typ)
	c.fn = fn
	c.interval = d
	c.deadline = l.deadline(d)
	l.queueEnable(c)
	return c.id
}

// OnReadable runs fn in every tick in which fd is readable (or hung up, or in
// error). The watcher belongs to the file fd names now: close fd with
// CloseFD (or cancel the watcher first). A watcher of an fd that is not open
// is reported (an FDError naming fd) in the next tick. It panics if fd < 0.
func (l *Loop) OnReadable(fd int, fn func(id CallbackID, fd int)) CallbackID {
	return l.watch(TypeReadable, "OnReadable", fd, fn)
}

// OnWritable runs fn in every tick in which fd is writable (or hung up, or in
// error). Everything OnReadable says of fd holds. It panics if fd < 0.
func (l *Loop) OnWritable(fd int, fn func(id CallbackID, fd int)) CallbackID {
	return l.watch(TypeWritable, "OnWritable", fd, fn)
}

func (l *Loop) watch(typ CallbackType, method string, fd int, fn func(CallbackID, int)) CallbackID {
	if fd < 0 || fd > math.MaxInt32 {
		panic(fmt.Sprintf("eventloop: %s called with an invalid fd %d", method, fd))
	}
	if fn == nil {
		panic("eventloop: " + method + " called with a nil func")
	}
	l.mustOpen(method)
	c := l.add(typ)
	c.fdFn = fn
	c.fd = int32(fd)
	if !l.noFileIDs {
		c.setFile(fd)
	}
	l.queueEnable(c)
	return c.id
}

// OnSignal runs fn in the tick after sig arrives. The loop takes the signal
// with os/signal.Notify while a watcher of it is enabled, and lets it go with
// signal.Stop afterwards (never Reset or Ignore: the process may embed other
// users of signals).
func (l *Loop) OnSignal(sig os.Signal, fn func(id CallbackID, sig os.Signal)) (CallbackID, error) {
	if fn == nil {
		panic("eventloop: OnSignal called with a nil func")
	}
	if l.closed {
		return 0, ErrLoopClosed
	}
	if err := checkSignal(sig); err != nil {
		return 0, err
	}
	c := l.add(TypeSignal)
	x := c.more()
	x.sigFn = fn
	x.sig = sig
	l.queueEnable(c)
	return c.id, nil
}

// deadline is now + d, saturated: a timer of a few centuries never fires,
// rather than overflowing into the past and firing at once.
func (l *Loop) deadline(d time.Duration) int64 {
	now := l.now()
	if int64(d) > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + int64(d)
}
