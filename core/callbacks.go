package core

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"time"
)

// callback is one registered callback. Its struct is owned by a slot of the
// loop's table and reused after Cancel, so registering costs no allocation
// once the table has grown; queues refer to it by id and drop stale ids.
type callback struct {
	id         CallbackID // 0 while the slot is free
	typ        CallbackType
	enabled    bool // as the user sees it
	referenced bool
	invokable  bool // active: may run this tick
	active     bool // registered with the timer heap, an fd or a signal
	enq        uint32

	fn    func(CallbackID)
	fdFn  func(CallbackID, int)
	sigFn func(CallbackID, os.Signal)

	fd       int
	sig      os.Signal
	interval time.Duration
	deadline int64 // monotonic ns since the loop's epoch
	seq      uint64
	heapIdx  int

	created []uintptr // where it was registered, with WithTracing
}

// queued is an entry of the enable queues; enq must still match for it to
// count, so that disabling and re-enabling moves a callback to the end.
type queued struct {
	id  CallbackID
	enq uint32
}

// entry is an entry of the tick's callback queue: a callback or a posted fn.
type entry struct {
	id   CallbackID
	post func()
}

// task is a microtask: a closure, or the resumption of a suspended fiber
// (which needs no closure, so resuming does not allocate).
type task struct {
	fn func()
	f  *fiber
}

func (l *Loop) lookup(id CallbackID) *callback {
	s := id.slot()
	if int(s) >= len(l.slots) {
		return nil
	}
	c := l.slots[s]
	if c.id != id || id == 0 {
		return nil
	}
	return c
}

func (l *Loop) mustOpen(method string) {
	if l.closed {
		panic("eventloop: " + method + " called after Close")
	}
}

// add registers a callback of type typ, enabled and referenced.
func (l *Loop) add(typ CallbackType) *callback {
	var s uint32
	if n := len(l.free); n > 0 {
		s = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		if len(l.slots) > idMask {
			panic(fmt.Sprintf("eventloop: more than %d callbacks registered at once", idMask))
		}
		s = uint32(len(l.slots))
		l.slots = append(l.slots, &callback{heapIdx: -1})
	}
	l.nextSeq++
	c := l.slots[s]
	c.id = CallbackID(l.nextSeq<<idBits | uint64(s))
	c.typ = typ
	c.enabled, c.referenced = true, true
	l.live++
	if l.trace {
		c.created = callers()
	}
	return c
}

func callers() []uintptr {
	pc := make([]uintptr, 32)
	return pc[:runtime.Callers(3, pc)]
}

func (l *Loop) queueEnable(c *callback) {
	c.enq++
	if c.typ == TypeDefer {
		l.enableDeferQueue = append(l.enableDeferQueue, queued{c.id, c.enq})
	} else {
		l.enableQueue = append(l.enableQueue, queued{c.id, c.enq})
	}
}

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
// error). Cancel it before closing fd. It panics if fd < 0.
func (l *Loop) OnReadable(fd int, fn func(id CallbackID, fd int)) CallbackID {
	return l.watch(TypeReadable, "OnReadable", fd, fn)
}

// OnWritable runs fn in every tick in which fd is writable (or hung up, or in
// error). Cancel it before closing fd. It panics if fd < 0.
func (l *Loop) OnWritable(fd int, fn func(id CallbackID, fd int)) CallbackID {
	return l.watch(TypeWritable, "OnWritable", fd, fn)
}

func (l *Loop) watch(typ CallbackType, method string, fd int, fn func(CallbackID, int)) CallbackID {
	if fd < 0 {
		panic(fmt.Sprintf("eventloop: %s called with an invalid fd %d", method, fd))
	}
	if fn == nil {
		panic("eventloop: " + method + " called with a nil func")
	}
	l.mustOpen(method)
	c := l.add(typ)
	c.fdFn = fn
	c.fd = fd
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
	c.sigFn = fn
	c.sig = sig
	l.queueEnable(c)
	return c.id, nil
}

// Enable enables a disabled callback; it becomes active in the next tick. A
// timer's deadline counts from this call.
func (l *Loop) Enable(id CallbackID) error {
	if l.closed {
		return ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return &InvalidCallbackError{ID: id}
	}
	if c.enabled {
		return nil
	}
	c.enabled = true
	if c.referenced {
		l.live++
	}
	if c.typ == TypeDelay || c.typ == TypeRepeat {
		c.deadline = l.deadline(c.interval)
	}
	l.queueEnable(c)
	return nil
}

// Disable disables a callback; an unknown id is ignored.
func (l *Loop) Disable(id CallbackID) {
	if c := l.lookup(id); c != nil {
		l.disable(c)
	}
}

func (l *Loop) disable(c *callback) {
	if !c.enabled {
		return
	}
	c.enabled = false
	c.invokable = false
	c.enq++ // drops its entry in an enable queue, if any
	if c.referenced {
		l.live--
	}
	if c.active {
		l.deactivate(c)
	}
}

// Cancel disables a callback and forgets it; an unknown id is ignored.
func (l *Loop) Cancel(id CallbackID) {
	if c := l.lookup(id); c != nil {
		l.cancel(c)
	}
}

func (l *Loop) cancel(c *callback) {
	l.disable(c)
	s := c.id.slot()
	*c = callback{heapIdx: -1, enq: c.enq}
	l.free = append(l.free, s)
}

// Reference makes a callback keep Run going while it is enabled.
func (l *Loop) Reference(id CallbackID) error {
	if l.closed {
		return ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return &InvalidCallbackError{ID: id}
	}
	if !c.referenced {
		c.referenced = true
		if c.enabled {
			l.live++
		}
	}
	return nil
}

// Unreference lets Run return even while the callback is enabled; an unknown
// id is ignored.
func (l *Loop) Unreference(id CallbackID) {
	c := l.lookup(id)
	if c == nil || !c.referenced {
		return
	}
	c.referenced = false
	if c.enabled {
		l.live--
	}
}

// Identifiers lists the ids of every callback not cancelled, in table order.
func (l *Loop) Identifiers() []CallbackID {
	ids := []CallbackID{}
	for _, c := range l.slots {
		if c.id != 0 {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// Type returns the kind of a callback.
func (l *Loop) Type(id CallbackID) (CallbackType, error) {
	c, err := l.find(id)
	if err != nil {
		return 0, err
	}
	return c.typ, nil
}

// IsEnabled reports whether a callback is enabled.
func (l *Loop) IsEnabled(id CallbackID) (bool, error) {
	c, err := l.find(id)
	if err != nil {
		return false, err
	}
	return c.enabled, nil
}

// IsReferenced reports whether a callback is referenced.
func (l *Loop) IsReferenced(id CallbackID) (bool, error) {
	c, err := l.find(id)
	if err != nil {
		return false, err
	}
	return c.referenced, nil
}

func (l *Loop) find(id CallbackID) (*callback, error) {
	if l.closed {
		return nil, ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return nil, &InvalidCallbackError{ID: id}
	}
	return c, nil
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
