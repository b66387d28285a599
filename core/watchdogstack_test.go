package core_test

import (
	"context"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// How the watchdog takes a stack costs the loop nothing at scale (issue
// 30): no lock the loop needs is held while it is taken, the world is not
// stopped for every stack printed, and the stack is the slow code's.

// wdDumpGuard is how long the hook of a dump waits for the loop to run on:
// a hang guard, reached only when the loop waits for the dump.
const wdDumpGuard = 10 * time.Second

// While the watchdog takes the stack of a run it has claimed, the loop ends
// that run (which takes the watchdog's lock, to leave its Done report) and
// runs the next callback: the dump holds no lock the loop needs. The stack,
// taken after the run ended, would show later code: the report leaves it
// out.
func TestWatchdogDumpHoldsNoLockOfTheLoop(t *testing.T) {
	dumpStarted := make(chan struct{})
	nextRan := make(chan struct{})
	var once sync.Once
	var ranDuringDump atomic.Bool
	defer core.SetWatchdogDumpHook(func() {
		once.Do(func() {
			close(dumpStarted)
			select {
			case <-nextRan:
				ranDuringDump.Store(true)
			case <-time.After(wdDumpGuard):
			}
		})
	})()
	var r reports
	l := newWatchedLoop(t, &r)
	slow := l.Defer(func(core.CallbackID) { <-dumpStarted })
	l.Defer(func(core.CallbackID) { close(nextRan) })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.True(t, ranDuringDump.Load(), "the next callback did not run while the watchdog took a stack: the loop waited for the dump")
	var running int
	for _, s := range r.all() {
		if s.ID == slow && !s.Done {
			running++
			assert.Empty(t, s.Stack, "a stack taken after the run ended shows later code")
		}
	}
	assert.Equal(t, 1, running, "reports of the slow callback while it ran: %v", r.all())
}

// spinForWatchdogStack spins with no call in its loop: only an asynchronous
// preemption stops it. chanForWatchdogStack waits on a channel, the
// goroutine parked. labelledForWatchdogStack runs under labels that replace
// the fiber's own.
func spinForWatchdogStack(stop *atomic.Bool) (n int) {
	for !stop.Load() {
		n++
	}
	return n
}

func chanForWatchdogStack(c <-chan struct{}) { <-c }

func labelledForWatchdogStack(c <-chan struct{}) { <-c }

// A run in a loop without calls, one parked on a channel, a resumed fiber
// and a microtask are each reported with their own stack, found in the
// goroutine profile by the loop's labels (no dump of all goroutines); the
// report names the goroutine and whether it runs or waits. A run whose
// labels were replaced (pprof.Do with another context) is found in a dump
// of all goroutines, once.
func TestWatchdogStackFromProfile(t *testing.T) {
	var r reports
	reported := func(frame string) func() bool {
		return func() bool { return r.running(frame) >= 1 }
	}
	l := newWatchedLoop(t, &r)
	l.Defer(func(core.CallbackID) {
		var stop atomic.Bool
		go func() {
			stuckUntil(reported("spinForWatchdogStack"))
			stop.Store(true)
		}()
		spinForWatchdogStack(&stop)
	})
	l.Defer(func(core.CallbackID) {
		c := make(chan struct{})
		go func() {
			stuckUntil(reported("chanForWatchdogStack"))
			close(c)
		}()
		chanForWatchdogStack(c)
	})
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		l.Queue(func() { s.Resume(nil) })
		_, _ = s.Suspend()
		stuckResumedForWatchdog(&r)
	})
	l.Queue(func() { stuckMicrotaskForWatchdog(&r) })
	before := core.WatchdogFullDumps()
	require.NoError(t, l.Run())
	assert.Equal(t, before, core.WatchdogFullDumps(), "stacks cut out of a dump of all goroutines")

	l.Defer(func(core.CallbackID) {
		pprof.Do(context.Background(), pprof.Labels("user", "x"), func(context.Context) {
			c := make(chan struct{})
			go func() {
				stuckUntil(reported("labelledForWatchdogStack"))
				close(c)
			}()
			labelledForWatchdogStack(c)
		})
	})
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.Equal(t, before+1, core.WatchdogFullDumps(), "a fiber whose labels were replaced is found in a dump of all goroutines")

	states := map[string]string{
		"spinForWatchdogStack":      "running",
		"chanForWatchdogStack":      "waiting",
		"stuckResumedForWatchdog":   "",
		"stuckMicrotaskForWatchdog": "",
		"labelledForWatchdogStack":  "",
	}
	for frame, state := range states {
		var found *core.SlowCallback
		for _, s := range r.all() {
			if !s.Done && strings.Contains(s.Stack, "."+frame+"(") {
				found = &s
				break
			}
		}
		if !assert.NotNil(t, found, "no report shows %s: %v", frame, r.all()) {
			continue
		}
		assert.NotContains(t, found.Stack, "core.(*watchdog)", "%s: the watchdog's own stack", frame)
		if state != "" {
			assert.True(t, strings.HasPrefix(found.Stack, "goroutine "), "%s:\n%s", frame, found.Stack)
			assert.Contains(t, strings.SplitN(found.Stack, "\n", 2)[0], " ["+state+"]:", frame)
		}
	}
}

// Two loops stuck at once each get the stack of their own fiber: the
// loops' labels tell their fibers apart.
func TestWatchdogStackOfEachLoop(t *testing.T) {
	var r reports
	a, b := newWatchedLoop(t, &r), newWatchedLoop(t, &r)
	both := func() bool {
		return r.running("stuckMicrotaskForWatchdog") >= 1 && r.running("stuckPostForWatchdog") >= 1
	}
	a.Defer(func(core.CallbackID) { stuckMicrotaskForWatchdog(&r); stuckUntil(both) })
	b.Defer(func(core.CallbackID) { stuckPostForWatchdog(&r); stuckUntil(both) })
	before := core.WatchdogFullDumps()
	errs := make(chan error, 1)
	go func() { errs <- b.Run() }()
	require.NoError(t, a.Run())
	require.NoError(t, <-errs)
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	assert.Equal(t, before, core.WatchdogFullDumps(), "stacks cut out of a dump of all goroutines")
	for _, s := range r.all() {
		if !s.Done && s.Kind == "defer" {
			mine := strings.Contains(s.Stack, "stuckMicrotaskForWatchdog") != strings.Contains(s.Stack, "stuckPostForWatchdog")
			assert.True(t, mine, "a report shows both loops' code, or neither:\n%s", s.Stack)
		}
	}
}

// parkedDeep parks a goroutine under depth frames, so that a dump of all
// goroutines has some size.
func parkedDeep(depth int, c <-chan struct{}) {
	if depth == 0 {
		<-c
		return
	}
	parkedDeep(depth-1, c)
}

// A report stops the world at most twice, however many goroutines are
// alive (the goroutine profile's start and end), rather than for each
// attempt at a buffer large enough for all their stacks. Counted by
// runtime/metrics: the pauses other than the collector's, from the slow
// callback's start to its report.
func TestWatchdogReportStopsTheWorldAtMostTwice(t *testing.T) {
	c := make(chan struct{})
	var wg sync.WaitGroup
	for range 4000 {
		wg.Go(func() { parkedDeep(20, c) })
	}
	defer wg.Wait()
	defer close(c)
	pauses := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
		metrics.Read(s)
		var n uint64
		for _, c := range s[0].Value.Float64Histogram().Counts {
			n += c
		}
		return n
	}
	var mu sync.Mutex
	var atStart, atReport uint64
	reported := false
	// The blocked-call report, off: its own look at the stuck callback
	// would stop the world too.
	l := core.New(newTimerDriver(), core.WithBlockedReport(nil), core.WithWatchdog(wdThreshold, func(s core.SlowCallback) {
		mu.Lock()
		defer mu.Unlock()
		if !s.Done && !reported {
			atReport, reported = pauses(), true
		}
	}))
	defer l.Close()
	l.Defer(func(core.CallbackID) {
		atStart = pauses()
		stuckUntil(func() bool {
			mu.Lock()
			defer mu.Unlock()
			return reported
		})
	})
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	mu.Lock()
	defer mu.Unlock()
	require.True(t, reported)
	assert.LessOrEqual(t, atReport-atStart, uint64(2), "stop-the-worlds for one report with 4000 goroutines alive")
}
