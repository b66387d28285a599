package conformance

// The five scenarios of the non-nesting drain rule (named as in the
// upstream change), written once and measured as data: nesting.go asserts
// what they must show with the rule, on every driver, and the core's own
// tests assert what the first three show with the rule switched off (so
// those three are exported).

import (
	"errors"

	"github.com/revoltgo/eventloop/core"
)

// Resumed is what scenarios 1 and 2 measure for N fibers resumed in one
// tick.
type Resumed struct {
	N        int
	Resumed  int      // fibers that went on after Suspend
	IDs      []uint64 // FiberID of each fiber
	Depths   []int    // ResumeDepth of each fiber after it was resumed
	Live     []int    // Stats().FibersLive as each fiber went on
	LiveEnd  int      // Stats().FibersLive after Run
	RunErr   error
	Distinct int // distinct fiber ids
}

// PrevFinished reports whether fiber i-1 had returned before fiber i went
// on: one fiber fewer was live.
func (r *Resumed) PrevFinished(i int) bool { return r.Live[i] == r.Live[i-1]-1 }

// ScenarioQueueFibers is ResumedQueueFibersDoNotNestInEachOther: N queued closures
// suspend; one Defer resumes them all in order.
func ScenarioQueueFibers(l *core.Loop, n int) *Resumed {
	return resumed(l, n, func(body func()) { l.Queue(body) })
}

// ScenarioCallbackFibers is ResumedCallbackFibersDoNotNestInEachOther: the same
// with the suspending closures registered by Defer, and the resumer an
// (N+1)-th Defer that runs last in the same tick.
func ScenarioCallbackFibers(l *core.Loop, n int) *Resumed {
	return resumed(l, n, func(body func()) { l.Defer(func(core.CallbackID) { body() }) })
}

func resumed(l *core.Loop, n int, register func(func())) *Resumed {
	r := &Resumed{N: n, IDs: make([]uint64, n), Depths: make([]int, n), Live: make([]int, n)}
	susp := make([]*core.Suspension, n)
	for i := range n {
		register(func() {
			r.IDs[i] = l.FiberID()
			susp[i] = l.Suspension()
			if _, err := susp[i].Suspend(); err != nil {
				return
			}
			r.Depths[i] = l.ResumeDepth()
			r.Live[i] = l.Stats().FibersLive
			r.Resumed++
		})
	}
	l.Defer(func(core.CallbackID) {
		for _, s := range susp {
			if s != nil {
				s.Resume(nil)
			}
		}
	})
	r.RunErr = l.Run()
	r.LiveEnd = l.Stats().FibersLive
	seen := map[uint64]bool{}
	for _, id := range r.IDs {
		seen[id] = true
	}
	r.Distinct = len(seen)
	return r
}

// LeavesCallbacks is what scenario 3 measures.
type LeavesCallbacks struct {
	Log          []string
	D1, D2, A    uint64 // fiber ids
	LiveD1       int    // FibersLive in D1 (A suspended)
	LiveD2       int    // FibersLive in D2
	LiveEnd      int
	RunErr       error
	AFinishedAt2 bool // one fiber fewer was live in D2 than in D1: A had returned
}

// ScenarioQueueFiberLeavesCallbacks is
// ResumedQueueFiberLeavesCallbacksToCurrentCallbackFiber: Queue(A) (A
// suspends, then logs "A resumed"), Defer(D1) (logs "D1", resumes A),
// Defer(D2) (logs "D2"). D2 must run on D1's fiber, after A returned.
func ScenarioQueueFiberLeavesCallbacks(l *core.Loop) *LeavesCallbacks {
	r := &LeavesCallbacks{}
	var a *core.Suspension
	l.Queue(func() {
		r.A = l.FiberID()
		a = l.Suspension()
		if _, err := a.Suspend(); err != nil {
			return
		}
		r.Log = append(r.Log, "A resumed")
	})
	l.Defer(func(core.CallbackID) {
		r.Log = append(r.Log, "D1")
		r.D1 = l.FiberID()
		r.LiveD1 = l.Stats().FibersLive
		a.Resume(nil)
	})
	l.Defer(func(core.CallbackID) {
		r.Log = append(r.Log, "D2")
		r.D2 = l.FiberID()
		r.LiveD2 = l.Stats().FibersLive
	})
	r.RunErr = l.Run()
	r.LiveEnd = l.Stats().FibersLive
	r.AFinishedAt2 = r.LiveD2 == r.LiveD1-1
	return r
}

// scenarioMicrotaskOrder is ResumedFibersKeepMicrotaskOrder: three queued fibers
// suspend; after resuming, fiber i logs "fiber i" and queues "after i". One
// Defer resumes fiber i and queues "between i" for i = 0..2, then defers
// "next tick". It returns the log and Run's error.
func scenarioMicrotaskOrder(l *core.Loop) ([]string, error) {
	var log []string
	names := []string{"0", "1", "2"}
	susp := make([]*core.Suspension, 3)
	for i := range 3 {
		l.Queue(func() {
			susp[i] = l.Suspension()
			if _, err := susp[i].Suspend(); err != nil {
				return
			}
			log = append(log, "fiber "+names[i])
			l.Queue(func() { log = append(log, "after "+names[i]) })
		})
	}
	l.Defer(func(core.CallbackID) {
		for i := range 3 {
			susp[i].Resume(nil)
			l.Queue(func() { log = append(log, "between "+names[i]) })
		}
		l.Defer(func(core.CallbackID) { log = append(log, "next tick") })
	})
	err := l.Run()
	return log, err
}

// panicStops is what scenario 5 measures.
type panicStops struct {
	FirstErr      error
	FlagAfter1    bool
	SecondErr     error
	FlagAfter2    bool
	Uncaught      *core.UncaughtError
	UncaughtMatch bool // errors.As found an *UncaughtError
}

// scenarioExceptionStops is
// ExceptionFromResumedFiberStopsNextMicrotask: without an error handler, a
// queued fiber suspends and panics with "boom" after resuming; a Defer
// resumes it and then queues a microtask that sets a flag. The first Run
// must return the panic with the flag still false; the second Run returns
// nil with the flag set.
func scenarioExceptionStops(l *core.Loop) *panicStops {
	r := &panicStops{}
	flag := false
	var s *core.Suspension
	l.Queue(func() {
		s = l.Suspension()
		if _, err := s.Suspend(); err != nil {
			return
		}
		panic("boom")
	})
	l.Defer(func(core.CallbackID) {
		s.Resume(nil)
		l.Queue(func() { flag = true })
	})
	r.FirstErr = l.Run()
	r.FlagAfter1 = flag
	r.UncaughtMatch = errors.As(r.FirstErr, &r.Uncaught)
	r.SecondErr = l.Run()
	r.FlagAfter2 = flag
	return r
}
