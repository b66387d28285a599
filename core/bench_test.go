package core_test

import (
	"iter"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Benchmarks of the scheduler's hot path, with the floors they are judged
// against (a closure FIFO, an iter.Pull round trip). No fd is watched, so no
// tick makes a syscall unless it has to block.

func benchLoop(b *testing.B) *core.Loop {
	l := core.New(newTimerDriver())
	b.Cleanup(func() { _ = l.Close() })
	return l
}

// BenchmarkFloorClosureFIFO: calling a closure taken from a FIFO of
// closures on a ring buffer (no allocation): the floor of a microtask.
func BenchmarkFloorClosureFIFO(b *testing.B) {
	var q [1024]func()
	var head, tail uint
	n := 0
	fn := func() { n++ }
	b.ReportAllocs()
	for b.Loop() {
		q[tail%1024] = fn
		tail++
		f := q[head%1024]
		head++
		f()
	}
}

// BenchmarkFloorPullRoundTrip: one switch into a coroutine and back.
func BenchmarkFloorPullRoundTrip(b *testing.B) {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	b.ReportAllocs()
	for b.Loop() {
		next()
	}
}

// BenchmarkMicrotask: b.N microtasks, each queueing the next.
func BenchmarkMicrotask(b *testing.B) { benchMicrotasks(b, benchLoop(b)) }

func benchMicrotasks(b *testing.B, l *core.Loop) {
	n := b.N
	var fn func()
	fn = func() {
		if n--; n > 0 {
			l.Queue(fn)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	l.Queue(fn)
	if err := l.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDefer: b.N defers, each deferring the next (a tick each).
func BenchmarkDefer(b *testing.B) {
	l := benchLoop(b)
	benchChain(b, l, func(fn func(core.CallbackID)) { l.Defer(fn) })
}

// benchChain runs b.N callbacks, each scheduling the next with schedule.
func benchChain(b *testing.B, l *core.Loop, schedule func(fn func(core.CallbackID))) {
	n := b.N
	var fn func(core.CallbackID)
	fn = func(core.CallbackID) {
		if n--; n > 0 {
			schedule(fn)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	schedule(fn)
	if err := l.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDelayZero: b.N zero delays, each arming the next.
func BenchmarkDelayZero(b *testing.B) {
	l := benchLoop(b)
	benchChain(b, l, func(fn func(core.CallbackID)) { l.Delay(0, fn) })
}

// BenchmarkSuspendResumeQueued: one fiber suspended and resumed b.N times,
// each resume queued as a microtask from the fiber itself before it suspends.
func BenchmarkSuspendResumeQueued(b *testing.B) {
	benchCycle(b, func(l *core.Loop, s *core.Suspension) func() {
		resume := func() { s.Resume(nil) }
		return func() { l.Queue(resume) }
	})
}

// BenchmarkSuspendResumeDeferred: the same, resumed by a Defer (a tick per
// cycle).
func BenchmarkSuspendResumeDeferred(b *testing.B) {
	benchCycle(b, func(l *core.Loop, s *core.Suspension) func() {
		resume := func(core.CallbackID) { s.Resume(nil) }
		return func() { l.Defer(resume) }
	})
}

// benchCycle suspends one fiber b.N times; arm returns what schedules the
// resume of each cycle, made once so that a cycle allocates nothing of the
// benchmark's own.
func benchCycle(b *testing.B, arm func(l *core.Loop, s *core.Suspension) func()) {
	l := benchLoop(b)
	n := b.N
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		schedule := arm(l, s)
		for range n {
			schedule()
			if _, err := s.Suspend(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	if err := l.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSuspendResumeMain: main suspended and resumed by a queued
// microtask (the upstream script's shape), b.N times.
func BenchmarkSuspendResumeMain(b *testing.B) {
	l := benchLoop(b)
	s := l.Suspension()
	resume := func() { s.Resume(nil) }
	b.ReportAllocs()
	for b.Loop() {
		l.Queue(resume)
		if _, err := s.Suspend(); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmark1000FibersOneTick: 1000 fibers suspend and are resumed in one
// tick; ns/op is per round of 1000.
func Benchmark1000FibersOneTick(b *testing.B) {
	l := benchLoop(b)
	const n = 1000
	susp := make([]*core.Suspension, n)
	body := func(i int) func(core.CallbackID) {
		return func(core.CallbackID) {
			susp[i] = l.Suspension()
			_, _ = susp[i].Suspend()
		}
	}
	bodies := make([]func(core.CallbackID), n)
	for i := range bodies {
		bodies[i] = body(i)
	}
	resumeAll := func(core.CallbackID) {
		for _, s := range susp {
			s.Resume(nil)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, fn := range bodies {
			l.Defer(fn)
		}
		l.Defer(resumeAll)
		if err := l.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeferTracing: BenchmarkDefer with WithTracing, for the cost of
// recording where each callback was created (without it, one branch).
func BenchmarkDeferTracing(b *testing.B) {
	l := core.New(newTimerDriver(), core.WithTracing())
	b.Cleanup(func() { _ = l.Close() })
	benchChain(b, l, func(fn func(core.CallbackID)) { l.Defer(fn) })
}

// BenchmarkDeferBatch: 1000 defers registered, then all run in one tick;
// ns/op is per defer. The loop's table has grown after the first round.
func BenchmarkDeferBatch(b *testing.B) {
	l := benchLoop(b)
	benchDeferBatch(b, func() *core.Loop { return l })
}

// BenchmarkDeferBatchFreshLoop: the same on a new loop every round, so that
// every registration finds the table empty (upstream's script: a million
// defers on a new process).
func BenchmarkDeferBatchFreshLoop(b *testing.B) {
	var l *core.Loop
	b.Cleanup(func() { _ = l.Close() })
	benchDeferBatch(b, func() *core.Loop {
		if l != nil {
			_ = l.Close()
		}
		l = core.New(newTimerDriver())
		return l
	})
}

func benchDeferBatch(b *testing.B, loop func() *core.Loop) {
	const batch = 1000
	fn := func(core.CallbackID) {}
	b.ReportAllocs()
	for b.Loop() {
		l := loop()
		for range batch {
			l.Defer(fn)
		}
		if err := l.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/defer")
}

// BenchmarkMicrotaskWatchdog and BenchmarkDeferWatchdog: BenchmarkMicrotask
// and BenchmarkDefer with the watchdog on (a threshold never reached), for
// its cost: a clock read and two atomic swaps per run.
func BenchmarkMicrotaskWatchdog(b *testing.B) {
	l := core.New(newTimerDriver(), core.WithWatchdog(time.Minute, func(core.SlowCallback) {}))
	b.Cleanup(func() { _ = l.Close() })
	benchMicrotasks(b, l)
}

func BenchmarkDeferWatchdog(b *testing.B) {
	l := core.New(newTimerDriver(), core.WithWatchdog(time.Minute, func(core.SlowCallback) {}))
	b.Cleanup(func() { _ = l.Close() })
	benchChain(b, l, func(fn func(core.CallbackID)) { l.Defer(fn) })
}

// BenchmarkMetricsFromAnotherGoroutine: one Loop.Metrics call from a
// goroutine that is not the loop's (a mutex and a copy).
func BenchmarkMetricsFromAnotherGoroutine(b *testing.B) {
	l := benchLoop(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Metrics()
	}
}
