package core

import (
	"fmt"
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
	notOpen    bool // a watcher whose fd was not open when it was made
	enq        uint32

	fn   func(CallbackID)
	fdFn func(CallbackID, int)

	fd      int32 // fd watcher: its fd
	heapIdx int32 // timer: its place in the heap (-1: none)

	// A timer's schedule.
	interval time.Duration // the period (Repeat), the delay (Delay)
	deadline int64         // monotonic ns since the loop's epoch
	seq      uint64        // order among equal deadlines

	// An fd watcher's file: the identity of the file its fd named when it
	// was made (file, setFile), and the registration of its fd it holds
	// (fds.go). Fields of their own rather than the timer's: a callback is
	// 104 bytes instead of 80, and no field means two things.
	file fileID
	held uint64

	// What signal watchers and tracing need, out of line: a loop holding
	// a million callbacks feels every word of them.
	extra *callbackExtra
}

type callbackExtra struct {
	sig     os.Signal
	sigFn   func(CallbackID, os.Signal)
	created []uintptr // where it was registered, with WithTracing
	notOpen error     // a watcher's fd was not open when it was made
}

// more returns c's out-of-line fields, allocating them on first use.
func (c *callback) more() *callbackExtra {
	if c.extra == nil {
		c.extra = &callbackExtra{}
	}
	return c.extra
}

// created is where c was registered (nil without tracing).
func (c *callback) created() []uintptr {
	if c.extra == nil {
		return nil
	}
	return c.extra.created
}

// queued is an entry of the enable queues; enq must still match for it to
// count, so that disabling and re-enabling moves a callback to the end.
type queued struct {
	id  CallbackID
	enq uint32
}

// entry is an entry of the tick's callback queue: a callback, a posted fn,
// or a fiber that an FD's readiness or timer resumes (fdwait.go).
type entry struct {
	id   CallbackID
	post func()
	f    *fiber
}

// task is a microtask: a closure, or the resumption of a suspended fiber
// (which needs no closure, so resuming does not allocate).
type task struct {
	fn func()
	f  *fiber
}

// The table grows by pages of callbacks: one allocation per page instead of
// one per slot, so that registering a million defers on a new loop makes the
// garbage collector trace thousands of objects, not a million.
const (
	pageBits = 6
	pageSize = 1 << pageBits
)

type page [pageSize]callback

func (l *Loop) slot(s uint32) *callback { return &l.pages[s>>pageBits][s&(pageSize-1)] }

func (l *Loop) lookup(id CallbackID) *callback {
	s := id.slot()
	if s >= l.nslots {
		return nil
	}
	c := l.slot(s)
	if c.id != id || id == 0 {
		return nil
	}
	return c
}

// eachCallback calls fn on every registered callback, in table order.
func (l *Loop) eachCallback(fn func(c *callback)) {
	for s := range l.nslots {
		if c := l.slot(s); c.id != 0 {
			fn(c)
		}
	}
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
		if l.nslots > idMask {
			panic(fmt.Sprintf("eventloop: more than %d callbacks registered at once", idMask))
		}
		s = l.nslots
		if s&(pageSize-1) == 0 {
			l.pages = append(l.pages, new(page))
		}
		l.nslots++
		l.slot(s).heapIdx = -1
	}
	l.nextSeq++
	c := l.slot(s)
	c.id = CallbackID(l.nextSeq<<idBits | uint64(s))
	c.typ = typ
	c.enabled, c.referenced = true, true
	l.live++
	l.callbackMade(c)
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
