package core_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Metrics count what ran, by kind; from the loop they are current.
func TestMetricsCountWhatRan(t *testing.T) {
	l := newLoop(t)
	var inside core.Metrics
	l.Defer(func(core.CallbackID) {
		l.Queue(func() {})
		l.Queue(func() {})
	})
	l.Delay(time.Millisecond, func(core.CallbackID) {})
	n := 0
	l.Repeat(time.Millisecond, func(id core.CallbackID) {
		if n++; n == 3 {
			l.Cancel(id)
			inside = l.Metrics()
		}
	})
	require.NoError(t, l.Post(func() {}))
	require.NoError(t, l.Run())
	m := l.Metrics()
	assert.Equal(t, uint64(1), m.CallbacksByType[core.TypeDefer])
	assert.Equal(t, uint64(1), m.CallbacksByType[core.TypeDelay])
	assert.Equal(t, uint64(3), m.CallbacksByType[core.TypeRepeat])
	assert.Equal(t, uint64(5), m.Callbacks)
	assert.Equal(t, l.Stats().Callbacks, m.Callbacks, "Stats and Metrics agree")
	assert.Equal(t, uint64(2), m.Microtasks)
	assert.Equal(t, uint64(1), m.Posts)
	assert.Zero(t, m.PostsPending)
	assert.Equal(t, l.Stats().Ticks, m.Ticks)
	assert.Equal(t, uint64(4), m.TimerLateness.Count, "one sample per timer run")
	assert.Equal(t, uint64(3), inside.CallbacksByType[core.TypeRepeat], "from a callback: current")
	assert.Zero(t, inside.Age)
	assert.Greater(t, m.Running, time.Duration(0))
	assert.Greater(t, m.Idle, time.Duration(0), "it waited for the timers")
	assert.LessOrEqual(t, m.Idle, m.Running)
	assert.Zero(t, m.Slowest, "no per-callback timing without the watchdog")
}

// Timer lateness: timers due together, each sleeping 5 ms, run 5 ms, 10
// ms, ... late, and the histogram says so.
func TestMetricsTimerLateness(t *testing.T) {
	l := newLoop(t)
	const timers, nap = 10, 5 * time.Millisecond
	for range timers {
		l.Delay(time.Millisecond, func(core.CallbackID) { time.Sleep(nap) })
	}
	require.NoError(t, l.Run())
	h := l.Metrics().TimerLateness
	require.Equal(t, uint64(timers), h.Count)
	assert.GreaterOrEqual(t, h.Quantile(0.5), 4*nap, "p50")
	assert.GreaterOrEqual(t, h.Max, (timers-1)*nap)
	assert.LessOrEqual(t, h.Quantile(0.5), h.Quantile(0.99))
	assert.Equal(t, h.Max, h.Quantile(1))
}

// Fibers suspended now, and posts not run yet.
func TestMetricsFibersAndPosts(t *testing.T) {
	l := newLoop(t)
	var susp []*core.Suspension
	var during core.Metrics
	for range 3 {
		l.Defer(func(core.CallbackID) {
			s := l.Suspension()
			susp = append(susp, s)
			_, _ = s.Suspend()
		})
	}
	l.Delay(time.Millisecond, func(core.CallbackID) {
		during = l.Metrics()
		for _, s := range susp {
			s.Resume(nil)
		}
	})
	require.NoError(t, l.Run())
	assert.Equal(t, 3, during.FibersSuspended)
	assert.Zero(t, l.Metrics().FibersSuspended)

	require.NoError(t, l.Post(func() {}))
	require.NoError(t, l.Post(func() {}))
	assert.Equal(t, 2, l.Metrics().PostsPending)
	require.NoError(t, l.Run())
	assert.Zero(t, l.Metrics().PostsPending)
}

// Read from another goroutine while the loop runs (go test -race: no data
// race), Metrics only grow; the loop publishes at least every 1024 ticks.
func TestMetricsFromAnotherGoroutine(t *testing.T) {
	l := newLoop(t)
	const ticks = 20000
	n := 0
	var fn func(core.CallbackID)
	fn = func(core.CallbackID) {
		if n++; n < ticks {
			l.Defer(fn)
		}
	}
	l.Defer(fn)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var seen []core.Metrics
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			seen = append(seen, l.Metrics())
			time.Sleep(50 * time.Microsecond)
		}
	})
	require.NoError(t, l.Run())
	close(stop)
	wg.Wait()
	for i := 1; i < len(seen); i++ {
		assert.GreaterOrEqual(t, seen[i].Ticks, seen[i-1].Ticks)
		assert.GreaterOrEqual(t, seen[i].Callbacks, seen[i-1].Callbacks)
	}
	assert.Equal(t, uint64(ticks), l.Metrics().Callbacks, "published when the run ended")
}

// A loop blocked in its driver is idle, and a reading from another
// goroutine counts the wait up to the call.
func TestMetricsIdleWhileBlocked(t *testing.T) {
	l := newLoop(t)
	var at sync.WaitGroup
	at.Add(1)
	l.Delay(60*time.Millisecond, func(core.CallbackID) {})
	l.Defer(func(core.CallbackID) { at.Done() })
	done := make(chan error)
	go func() { done <- l.Run() }()
	at.Wait()
	time.Sleep(20 * time.Millisecond)
	m1 := l.Metrics()
	time.Sleep(20 * time.Millisecond)
	m2 := l.Metrics()
	require.NoError(t, <-done)
	u := m2.UtilizationSince(m1)
	assert.Greater(t, u.Idle, 10*time.Millisecond, "%+v", u)
	assert.Less(t, u.Utilization, 0.5, "%+v", u)
	whole := l.Metrics().UtilizationSince(core.Metrics{})
	assert.Less(t, whole.Utilization, 0.5, "mostly waiting: %+v", whole)
	assert.InDelta(t, float64(l.Metrics().Running), float64(whole.Idle+whole.Active), 1)
}

// After Close, Metrics are the final values; Stop after Close does
// nothing.
func TestMetricsAfterClose(t *testing.T) {
	l := core.New(newTimerDriver())
	l.Defer(func(core.CallbackID) {})
	require.NoError(t, l.Run())
	before := l.Metrics()
	require.NoError(t, l.Close())
	after := l.Metrics()
	assert.Equal(t, before.Callbacks, after.Callbacks)
	assert.Equal(t, before.Ticks, after.Ticks)
	assert.NotPanics(t, l.Stop)
	assert.NotPanics(t, func() { l.Metrics() })
}

// Stop from another goroutine wakes a loop blocked in its driver.
func TestStopFromAnotherGoroutine(t *testing.T) {
	l := newLoop(t)
	l.Delay(time.Hour, func(core.CallbackID) {})
	started := make(chan struct{})
	l.Defer(func(core.CallbackID) { close(started) })
	go func() {
		<-started
		time.Sleep(10 * time.Millisecond)
		l.Stop()
	}()
	begin := time.Now()
	require.NoError(t, l.Run())
	assert.Less(t, time.Since(begin), 10*time.Second)
}

// RunContext returns ctx.Err() when ctx ends the run, nil when the loop
// runs out of work first, and ctx.Err() at once for a done ctx.
func TestRunContext(t *testing.T) {
	l := newLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	id := l.Repeat(time.Millisecond, func(core.CallbackID) {})
	assert.ErrorIs(t, l.RunContext(ctx), context.DeadlineExceeded)
	assert.ErrorIs(t, l.RunContext(ctx), context.DeadlineExceeded, "done already")
	l.Cancel(id)

	ran := false
	l.Defer(func(core.CallbackID) { ran = true })
	require.NoError(t, l.RunContext(context.Background()))
	assert.True(t, ran)

	// A cancellation after the run ended does not stop the next run.
	ctx2, cancel2 := context.WithCancel(context.Background())
	l.Defer(func(core.CallbackID) {})
	require.NoError(t, l.RunContext(ctx2))
	cancel2()
	time.Sleep(5 * time.Millisecond)
	n := 0
	l.Delay(2*time.Millisecond, func(core.CallbackID) { n++ })
	require.NoError(t, l.Run())
	assert.Equal(t, 1, n)
}

// The histogram's buckets tile the durations, each at most 25% wide.
func TestHistogramBuckets(t *testing.T) {
	prevHi := time.Duration(0)
	for i := range core.HistogramBuckets {
		lo, hi := core.BucketBounds(i)
		assert.Equal(t, prevHi, lo, "bucket %d starts where %d ends", i, i-1)
		assert.Greater(t, hi, lo)
		if i > 0 && i < core.HistogramBuckets-1 {
			assert.LessOrEqual(t, float64(hi)/float64(lo), 1.25+1e-9, "bucket %d", i)
		}
		prevHi = hi
	}
	var h core.Histogram
	assert.Zero(t, h.Quantile(0.5))
	assert.Zero(t, h.Mean())
}
