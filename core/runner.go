package core

// Runner is a microtask that carries its own state (QueueRunner).
type Runner interface{ Run() }

// runnerQueue holds the Runners queued, oldest first. Each one has a
// microtask of its own, pushed with it (runNext), so that Runners and
// funcs run in one order; microtasks run in order and are dropped only
// all at once (Close), so the two queues stay in step. It sits apart from
// the microtasks so that the scheduler's hot path, the microtask loop,
// is the same with it or without it.
type runnerQueue struct {
	runners ring[Runner]
	runNext func() // l.runRunner, made once: a method value per call would allocate
}

// QueueRunner runs r.Run() as a microtask, as Queue runs a func: after
// the current callback (or microtask), in the order of every Queue and
// QueueRunner call. A pointer in an interface is not boxed, so a value
// that keeps its own state queues itself with no allocation, where
// Queue(func() { x.run() }) allocates a closure per call.
func (l *Loop) QueueRunner(r Runner) {
	if r == nil {
		panic("eventloop: QueueRunner called with a nil Runner")
	}
	l.mustOpen("QueueRunner")
	if l.runNext == nil {
		l.runNext = l.runRunner
	}
	l.runners.push(r)
	l.microtasks.push(task{fn: l.runNext})
}

// runRunner runs the oldest Runner; it is taken off first, so that one
// that panics is not run again.
func (l *Loop) runRunner() { l.runners.pop().Run() }
