package core

import (
	"bytes"
	"runtime"
)

// Run runs the loop until no enabled referenced callback (nor post) is left,
// or until Stop. It returns nil, an *UncaughtError that no error handler
// took (the loop stays usable: Run again to go on), ErrLoopRunning if the
// loop is already running (called from a callback, or on a second
// goroutine), or ErrLoopClosed.
func (l *Loop) Run() error {
	if l.closed {
		return ErrLoopClosed
	}
	if !l.entered.CompareAndSwap(false, true) {
		return ErrLoopRunning
	}
	defer l.entered.Store(false)
	l.enter(opRun)
	intr := l.mainIntr
	l.mainIntr = interrupt{}
	if intr.uncaught != nil {
		return intr.uncaught
	}
	return nil
}

// runLoopFiber switches from main to the loop fiber (a new one, or the one
// parked mid-tick) until it ends or hands main an interrupt.
func (l *Loop) runLoopFiber() interrupt {
	if l.loopFiber == nil {
		l.loopFiber = l.spawn(taskLoop)
	}
	l.switchTo(l.loopFiber)
	intr := l.intr
	l.intr = interrupt{}
	return intr
}

// mainOp is what main asks of the loop's fibers: run (Run, or a main
// Suspend, then l.mainWait is set), or shut down (Close).
type mainOp uint8

const (
	opRun mainOp = iota + 1
	opClose
)

// doMain performs op; its results are left in l.mainIntr and
// l.mainDeadlock, so that entering the loop allocates nothing.
func (l *Loop) doMain(op mainOp) {
	switch op {
	case opRun:
		l.mainIntr = l.runLoopFiber()
		if s := l.mainWait; s != nil && s.pending && l.mainIntr.uncaught == nil {
			l.mainDeadlock = l.deadlockError()
		}
	case opClose:
		l.shutdown()
	}
}

// enter performs op, which switches from main to the loop's fibers, on a
// goroutine that is not locked to its OS thread. The runtime only lets a
// goroutine switch to a coroutine in the thread-lock state the coroutine was
// created in ("coro: OS thread locking must match locking at coroutine
// creation"), and loops are run from locked goroutines (GUI and cgo main
// threads) as well as unlocked ones, one after the other. Every fiber is
// therefore created and switched to by unlocked goroutines: main itself when
// it is unlocked, else a helper goroutine for the length of the call.
func (l *Loop) enter(op mainOp) {
	if !threadLocked(&l.lockBuf) {
		l.doMain(op)
		return
	}
	type outcome struct {
		done bool
		p    any
	}
	res := make(chan outcome, 1)
	go func() {
		done := false
		defer func() {
			if !done {
				res <- outcome{p: recover()}
			}
		}()
		l.doMain(op)
		done = true
		res <- outcome{done: true}
	}()
	o := <-res
	if !o.done {
		if o.p == nil {
			runtime.Goexit() // op called Goexit: so does its caller
		}
		panic(o.p)
	}
}

// threadLocked reports whether the calling goroutine is locked to its OS
// thread. The runtime offers no query; the header of the goroutine's own
// traceback says it ("locked to thread"). It costs ~2.5 µs, paid on entry to
// Run, to a main Suspend and to Close, never per callback.
func threadLocked(buf *[64]byte) bool {
	n := runtime.Stack(buf[:], false)
	head := buf[:n]
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte("locked to thread"))
}

// RunOnce runs a single tick, for embedding the loop in another one (whose
// poller can watch the driver's Fd, where it has one). With wait it may
// block until something is ready, as a tick of Run may; without, it only
// polls. It reports whether anything keeps the loop alive, and returns what
// Run would.
func (l *Loop) RunOnce(wait bool) (alive bool, err error) {
	l.once, l.noWait = true, !wait
	defer func() { l.once, l.noWait = false, false }()
	err = l.Run()
	return !l.isEmpty(), err
}
