package core

import "context"

// Run runs the loop until no enabled referenced callback (nor post) is left,
// or until Stop. It returns nil, an *UncaughtError that no error handler
// took (the loop stays usable: Run again to go on), ErrLoopRunning if the
// loop is already running (called from a callback, or on a second
// goroutine), or ErrLoopClosed.
func (l *Loop) Run() error {
	if l.closedFlag.Load() {
		return ErrLoopClosed
	}
	if !l.entered.CompareAndSwap(false, true) {
		return ErrLoopRunning
	}
	return l.runEntered(nil)
}

// runEntered runs the loop for the goroutine that has just claimed it
// (entered), until it stops, or until done is closed (nil: never), then
// lets it go and tells the goroutines waiting in RunUntil.
func (l *Loop) runEntered(done <-chan struct{}) error {
	defer l.runEnds.signal()
	defer l.entered.Store(false)
	if l.closed {
		return ErrLoopClosed
	}
	l.runGen++ // a stop that a RunUntil posted is for its own run only
	if done != nil {
		defer l.stopWhenDone(done)()
	}
	l.runStarts()
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
	opDump
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
	case opDump:
		_, l.dump = l.report()
	}
}

// enter performs op on the loop's proxy goroutine, which alone switches to
// the loop's fibers. The runtime only lets a goroutine switch to a coroutine
// in the thread-lock state the coroutine was created in ("coro: OS thread
// locking must match locking at coroutine creation"), loops are run from
// goroutines locked to their thread (GUI and cgo main threads) as well as
// unlocked ones, one after the other, and the runtime has no cheap way to
// tell which a caller is. The proxy is never locked, so every fiber is
// created and switched to in one state, whatever main does. A round trip to
// it is a channel handoff (about 0.5 µs, on the caller's P when the caller
// is unlocked); Close ends it.
func (l *Loop) enter(op mainOp) {
	p := l.proxy
	if p == nil {
		p = &proxy{req: make(chan mainOp), done: make(chan proxyOutcome), exited: make(chan struct{})}
		l.proxy = p
		go l.serve(p)
	}
	p.req <- op
	o := <-p.done
	if !o.ok {
		l.proxy = nil
		<-p.exited
		l.cur = nil
		if o.p != nil {
			panic(o.p) // a bug in the loop's own code: the caller gets it
		}
		// A callback called runtime.Goexit (t.FailNow does): iter.Pull
		// ended every fiber on the resume chain, and the proxy, with it.
		// The fibers' exits have mended the loop's books (fiberExit); the
		// caller gets an error instead of a deadlock or its own Goexit.
		if op == opClose {
			l.enter(opClose) // the rest of the unwinding
			return
		}
		l.mainIntr = interrupt{set: true, uncaught: &UncaughtError{Value: ErrGoexit}}
		return
	}
	if op == opClose {
		close(p.req)
		<-p.exited
		l.proxy = nil
	}
}

// proxy is the goroutine that main's calls (Run, a main Suspend, Close)
// hand their work to.
type proxy struct {
	req    chan mainOp
	done   chan proxyOutcome
	exited chan struct{}
}

type proxyOutcome struct {
	ok bool
	p  any // the panic value; nil with !ok is a Goexit
}

func (l *Loop) serve(p *proxy) {
	defer close(p.exited)
	ok := false
	defer func() {
		if !ok {
			p.done <- proxyOutcome{p: recover()}
		}
	}()
	for op := range p.req {
		l.doMain(op)
		p.done <- proxyOutcome{ok: true}
	}
	ok = true
}

// RunOnce runs a single tick, for embedding the loop in another one (whose
// poller can watch the driver's Fd, where it has one). With wait it may
// block until something is ready, as a tick of Run may; without, it only
// polls. It reports whether anything keeps the loop alive, and returns what
// Run would.
func (l *Loop) RunOnce(wait bool) (alive bool, err error) {
	l.mode = runOneTick
	if !wait {
		l.mode = runOneTickNoWait
	}
	defer func() { l.mode = runUntilEmpty }()
	err = l.Run()
	return !l.isEmpty(), err
}

// RunContext runs the loop as Run does, and also stops it when ctx is done;
// it then returns ctx.Err() (at once if ctx is done already), as it does
// whenever ctx is done by the time the run ends. It suits a main that runs
// until a signal: ctx from signal.NotifyContext. The stop is posted for
// this run only, so a cancellation that comes after the run has ended does
// not stop the next one.
func (l *Loop) RunContext(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.closedFlag.Load() {
		return ErrLoopClosed
	}
	if !l.entered.CompareAndSwap(false, true) {
		return ErrLoopRunning
	}
	err := l.runEntered(ctx.Done())
	if err == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
