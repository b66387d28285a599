package core

import "iter"

// A fiber is a coroutine on the runtime's coroutine switch (iter.Pull):
// switching to it blocks the switcher until the fiber yields or returns, so
// exactly one fiber of a loop runs at a time. A fiber goroutine runs tasks
// one after the other: when a task ends, the fiber parks in the loop's pool
// and yields to whoever switched to it last, exactly as if it had returned,
// so that the next fiber costs a switch instead of a goroutine.
type fiber struct {
	l     *Loop
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool

	id        uint64 // new for every task: a reused goroutine is a new fiber
	depth     int32  // position on the resume chain (see Loop.ResumeDepth)
	kind      taskKind
	parked    bool // yielded to the loop's machinery, not suspended by the user
	suspended bool // suspended through its Suspension
	probe     bool // resumed only to record its stack (deadlock reports)

	// With the watchdog: the fiber goroutine's id, and what the fiber ran
	// last (what a resumed fiber goes on with).
	runTyp  CallbackType
	runKind runKind
	gid     uint64
	runID   CallbackID

	arg     error // the error handed to an error-handler task
	val     any   // what Resume or Throw hands over
	err     error
	susp    *Suspension
	locals  map[any]any
	stack   string // recorded by a probe
	created []uintptr

	prev, succ *fiber // fiberList links
}

type taskKind uint8

const (
	taskLoop    taskKind = iota + 1 // runs ticks (loop.go's Run, tick.go)
	taskDrain                       // drains the queues (drain.go)
	taskHandler                     // runs the error handler on arg
	taskPosts                       // runs the posts left at Close
)

// fiberList links every fiber goroutine of a loop, so that Close can end
// them all and a deadlock report can find the suspended ones.
type fiberList struct {
	head *fiber
	n    int
}

func (fl *fiberList) add(f *fiber) {
	f.succ = fl.head
	if fl.head != nil {
		fl.head.prev = f
	}
	fl.head = f
	fl.n++
}

func (fl *fiberList) remove(f *fiber) {
	if f.prev != nil {
		f.prev.succ = f.succ
	} else {
		fl.head = f.succ
	}
	if f.succ != nil {
		f.succ.prev = f.prev
	}
	f.prev, f.succ = nil, nil
	fl.n--
}

func (l *Loop) newFiber() *fiber {
	f := &fiber{l: l}
	// A method value holds f alone: 16 B for every fiber, where a
	// closure over f and l took 24.
	f.next, f.stop = iter.Pull(f.start)
	l.fibers.add(f)
	return f
}

func (f *fiber) start(yield func(struct{}) bool) {
	f.yield = yield
	f.l.markFiber()
	f.l.fiberStarts(f)
	f.body()
}

// body is the life of a fiber goroutine: run a task, park in the pool, and
// run the next one it is handed, until Close (or a full pool) ends it.
func (f *fiber) body() {
	l := f.l
	defer l.fiberExit(f)
	for {
		switch f.kind {
		case taskLoop:
			l.loopTask()
		case taskDrain:
			l.drain(f)
		case taskHandler:
			l.handle(f)
		case taskPosts:
			l.drainPostsAtClose()
		}
		if !l.release(f) {
			return
		}
		if !f.yield(struct{}{}) || l.closing {
			return
		}
	}
}

// fiberExit ends a fiber goroutine. One that ends with a task in progress
// was taken by runtime.Goexit in a callback: it gives up its roles so that
// the loop goes on without it.
func (l *Loop) fiberExit(f *fiber) {
	l.fibers.remove(f)
	if f.kind == 0 {
		return
	}
	l.fibersLive--
	if l.loopFiber == f {
		l.loopFiber = nil
	}
	if l.cbFiber == f {
		l.cbFiber = nil
	}
	if f.suspended {
		l.fiberResumed()
	}
	f.suspended = false
}

// spawn readies a fiber (from the pool when one is there) to run a task; the
// caller switches to it.
func (l *Loop) spawn(kind taskKind) *fiber {
	var f *fiber
	if n := len(l.pool); n > 0 {
		f = l.pool[n-1]
		l.pool[n-1] = nil
		l.pool = l.pool[:n-1]
	} else {
		f = l.newFiber()
	}
	f.kind = kind
	l.nextFiber++
	f.id = l.nextFiber
	l.counts.fibersStarted++
	l.fibersLive++
	return f
}

// release ends a task: it reports whether the fiber goes to the pool (true)
// or its goroutine ends.
func (l *Loop) release(f *fiber) bool {
	l.userRunPauses() // its task has ended
	l.fibersLive--
	f.kind, f.arg = 0, nil
	f.susp, f.locals, f.val, f.err = nil, nil, nil, nil
	f.created = nil
	if l.closing || len(l.pool) >= l.poolMax {
		return false
	}
	l.pool = append(l.pool, f)
	return true
}

// switchTo transfers control to f until f yields or returns.
func (l *Loop) switchTo(f *fiber) {
	prev := l.cur
	d := 1
	if prev != nil {
		d = int(prev.depth) + 1
	}
	f.depth = int32(d)
	if d > l.counts.maxResumeDepth {
		l.counts.maxResumeDepth = d
	}
	l.cur = f
	f.next()
	l.cur = prev
}

// park yields to the switcher without user-visible suspension: the callback
// fiber between ticks, the loop fiber handing an interrupt to main.
func (f *fiber) park() {
	f.l.userRunPauses()
	f.parked = true
	f.yield(struct{}{})
	f.parked = false
}
