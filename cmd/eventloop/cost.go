package main

import (
	"errors"
	"iter"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/drainrule"
)

// costCase is one case of Table 2. prepare registers the work on a fresh
// loop and returns what is timed.
type costCase struct {
	name string
	ops  int // per run; what ns/op divides by
	// upstream is the PHP figure after the change (0: none): upstreamMS
	// for upstreamOps operations.
	upstreamMS  float64
	upstreamOps int
	prepare     func(l *core.Loop, ops int) func() error
}

// costSizes are the operations of one run of each case of Table 2, a few
// milliseconds: shorter runs vary more from one to the next (a run starts
// with the caches the GC before it evicted), longer ones are hit more often
// by other processes on a busy machine.
type costSizes struct {
	microtasks, defers, cycles, rounds int
}

var runSizes = costSizes{microtasks: 500_000, defers: 50_000, cycles: 10_000, rounds: 2}

const (
	fibersPerRound = 1000
	defersPerTick  = 10_000
)

func costCases(s costSizes) []costCase {
	return []costCase{
		{"microtasks (Queue)", s.microtasks, 221, 1_000_000, prepMicrotasks},
		{"defers (a tick each)", s.defers, 569, 1_000_000, prepDefers},
		{"defers (10000 in one tick)", s.defers, 569, 1_000_000, prepDefersBatch},
		{"suspend/resume: queued microtask, in a fiber", s.cycles, 400, 200_000, prepSuspendQueued},
		{"suspend/resume: Defer, in a fiber", s.cycles, 0, 0, prepSuspendDeferred},
		{"suspend/resume: queued microtask, main", s.cycles, 0, 0, prepSuspendMain},
		{"1000 fibers resumed in one tick (per fiber)", s.rounds * fibersPerRound, 2009, 100 * fibersPerRound, prepFibersOneTick},
	}
}

func prepMicrotasks(l *core.Loop, ops int) func() error {
	n := ops
	var fn func()
	fn = func() {
		if n--; n > 0 {
			l.Queue(fn)
		}
	}
	return func() error {
		l.Queue(fn)
		return l.Run()
	}
}

func prepDefers(l *core.Loop, ops int) func() error {
	n := ops
	var fn func(core.CallbackID)
	fn = func(core.CallbackID) {
		if n--; n > 0 {
			l.Defer(fn)
		}
	}
	return func() error {
		l.Defer(fn)
		return l.Run()
	}
}

// prepDefersBatch registers 10000 defers before Run, which runs them all
// in one tick, tick after tick on one loop. A single tick of 50000 needs
// more memory than the runtime keeps from one run to the next (after each
// run's GC it gives some back to the OS), and the next run's page faults
// outweighed the loop: 170 ns/op, against 45.
func prepDefersBatch(l *core.Loop, ops int) func() error {
	perTick := min(ops, defersPerTick)
	fn := func(core.CallbackID) {}
	return func() error {
		for range ops / perTick {
			for range perTick {
				l.Defer(fn)
			}
			if err := l.Run(); err != nil {
				return err
			}
		}
		return nil
	}
}

func prepSuspendQueued(l *core.Loop, ops int) func() error {
	var failed error
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		resume := func() { s.Resume(nil) }
		for range ops {
			l.Queue(resume)
			if _, err := s.Suspend(); err != nil {
				failed = err
				return
			}
		}
	})
	return func() error { return errors.Join(l.Run(), failed) }
}

// prepSuspendDeferred registers the fiber in the timed run: the first Defer
// it needs is the one that starts it.
func prepSuspendDeferred(l *core.Loop, ops int) func() error {
	var failed error
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		resume := func(core.CallbackID) { s.Resume(nil) }
		for range ops {
			l.Defer(resume)
			if _, err := s.Suspend(); err != nil {
				failed = err
				return
			}
		}
	})
	return func() error { return errors.Join(l.Run(), failed) }
}

func prepSuspendMain(l *core.Loop, ops int) func() error {
	s := l.Suspension()
	resume := func() { s.Resume(nil) }
	return func() error {
		for range ops {
			l.Queue(resume)
			if _, err := s.Suspend(); err != nil {
				return err
			}
		}
		return nil
	}
}

// prepFibersOneTick: per round, 1000 Defers suspend and a 1001st resumes
// them all in the same tick (upstream's "1000 fibers resumed in the same
// tick", round after round on one loop).
func prepFibersOneTick(l *core.Loop, ops int) func() error {
	rounds := ops / fibersPerRound
	susp := make([]*core.Suspension, fibersPerRound)
	bodies := make([]func(core.CallbackID), fibersPerRound)
	for i := range bodies {
		bodies[i] = func(core.CallbackID) {
			susp[i] = l.Suspension()
			_, _ = susp[i].Suspend()
		}
	}
	resumeAll := func(core.CallbackID) {
		for _, s := range susp {
			s.Resume(nil)
		}
	}
	round := func() error {
		for _, fn := range bodies {
			l.Defer(fn)
		}
		l.Defer(resumeAll)
		return l.Run()
	}
	// One untimed round first: upstream's 100 rounds on one loop are timed
	// in the steady state, where the fiber pool is full, and a run here has
	// only a few rounds.
	warm := round()
	return func() error {
		if warm != nil {
			return warm
		}
		for range rounds {
			if err := round(); err != nil {
				return err
			}
		}
		return nil
	}
}

// costRun times one case once on a fresh loop made with opts; Close is not
// timed.
func costRun(driver string, c costCase, rule bool, opts ...core.Option) (sample, error) {
	l, err := newBenchLoop(driver, rule, opts...)
	if err != nil {
		return sample{}, err
	}
	fn := c.prepare(l, c.ops)
	s, err := timed(fn)
	return s, errors.Join(err, l.Close())
}

// Floors: the same work in bare Go, with no loop.

// floorClosureFIFO: each closure pushed on a ring FIFO and popped and
// called, as a microtask queue does with no loop around it.
func floorClosureFIFO(ops int) func() error {
	return func() error {
		var ring [1024]func()
		head, tail := 0, 0
		n := 0
		fn := func() { n++ }
		for range ops {
			ring[tail&(len(ring)-1)] = fn
			tail++
			f := ring[head&(len(ring)-1)]
			ring[head&(len(ring)-1)] = nil
			head++
			f()
		}
		if n != ops {
			return errors.New("closure FIFO: lost calls")
		}
		return nil
	}
}

func floorPullRoundTrip(ops int) func() error {
	return func() error {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		defer stop()
		for range ops {
			next()
		}
		return nil
	}
}

// floorChannelHandoff: a round trip to another goroutine and back over two
// unbuffered channels (what a fiber would cost without coroutines).
func floorChannelHandoff(ops int) func() error {
	return func() error {
		ping, pong := make(chan struct{}), make(chan struct{})
		go func() {
			for range ping {
				pong <- struct{}{}
			}
			close(pong)
		}()
		for range ops {
			ping <- struct{}{}
			<-pong
		}
		close(ping)
		<-pong
		return nil
	}
}

// newBenchLoop makes a loop on the named driver with the drain rule on or,
// for the tables that put a number on it, off.
func newBenchLoop(name string, rule bool, opts ...core.Option) (*core.Loop, error) {
	d, err := eventloop.NewDriver(name)
	if err != nil {
		return nil, err
	}
	if !rule {
		d = drainrule.Off(d)
	}
	return core.New(d, opts...), nil
}
