package core_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// blockingDriver is the timer driver that tells when the loop blocks in
// it: each Wait with a timeout (the loop has nothing to do until an event,
// a post or a timer) sends on blocked, if nobody has taken the last one.
type blockingDriver struct {
	*timerDriver
	blocked chan struct{}
}

func newBlockingDriver() *blockingDriver {
	return &blockingDriver{timerDriver: newTimerDriver(), blocked: make(chan struct{}, 1)}
}

func (d *blockingDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if timeout != 0 {
		select {
		case d.blocked <- struct{}{}:
		default:
		}
	}
	return d.timerDriver.Wait(events, timeout)
}

// A loop blocked in its driver is idle, and a reading from another
// goroutine counts the wait up to the call. The loop stays blocked (an
// hour's timer) until the test posts; the two readings are taken while it
// is, so the time between them is all idle however loaded the machine.
func TestMetricsIdleWhileBlocked(t *testing.T) {
	d := newBlockingDriver()
	l := core.New(d)
	t.Cleanup(func() { _ = l.Close() })
	hold := l.Delay(time.Hour, func(core.CallbackID) {})
	done := make(chan error)
	go func() { done <- l.Run() }()
	<-d.blocked
	m1 := l.Metrics()
	t1 := time.Now()
	time.Sleep(20 * time.Millisecond) // pacing: the loop is blocked until the post below
	t2 := time.Now()
	m2 := l.Metrics()
	require.NoError(t, l.Post(func() { l.Cancel(hold) }))
	require.NoError(t, <-done)
	u := m2.UtilizationSince(m1)
	// m1 read the clock before t1 and m2 after t2: at least t2 - t1 of
	// wait lies between them, and nothing ran.
	assert.GreaterOrEqual(t, u.Idle, t2.Sub(t1), "%+v", u)
	assert.Zero(t, u.Active, "%+v", u)
	assert.Zero(t, u.Utilization, "%+v", u)
	whole := l.Metrics().UtilizationSince(core.Metrics{})
	assert.GreaterOrEqual(t, whole.Idle, u.Idle, "the whole run counts the wait: %+v", whole)
	assert.InDelta(t, float64(l.Metrics().Running), float64(whole.Idle+whole.Active), 1)
}

// Run that returns an uncaught error ends the run's time, although its
// loop fiber stays parked mid-tick for the next Run to go on from: Running
// does not grow while no Run is in progress.
func TestMetricsRunningStopsWhenRunFails(t *testing.T) {
	l := newLoop(t)
	l.Defer(func(core.CallbackID) { panic("boom") })
	var ue *core.UncaughtError
	require.ErrorAs(t, l.Run(), &ue)
	before := l.Metrics().Running
	time.Sleep(2 * time.Millisecond) // time outside Run, which must not count
	assert.Equal(t, before, l.Metrics().Running, "Running grew with no Run in progress")
	require.NoError(t, l.Run())
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

// Stop from another goroutine wakes a loop blocked in its driver: the
// Stop comes once the loop waits in the driver (not before it blocks,
// which would only make it skip the wait), with a timer due in a minute.
// Without the wakeup the run lasts until that timer (a hang guard that
// fails the test, rather than a bound on speed).
func TestStopFromAnotherGoroutine(t *testing.T) {
	d := newBlockingDriver()
	l := core.New(d)
	t.Cleanup(func() { _ = l.Close() })
	fired := false
	l.Delay(time.Minute, func(core.CallbackID) { fired = true })
	go func() {
		<-d.blocked
		l.Stop()
	}()
	require.NoError(t, l.Run())
	assert.False(t, fired, "the run ended with the timer, not with Stop")
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
	// The run's watcher of ctx2 is gone by now, or ends now; once it has,
	// any stop it posted is queued before the next run.
	watcherGone(t)
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

// watcherGone waits until no goroutine watches a RunContext's ctx (a hang
// guard of a minute).
func watcherGone(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		if !strings.Contains(string(buf[:n]), "core.(*Loop).stopWhenDone.func") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a RunContext's watcher of its ctx is still there")
		}
	}
}

// Utilization between two readings is the share of the time between them
// that the loop was busy; two equal readings give 0, not NaN.
func TestUtilizationSince(t *testing.T) {
	prev := core.Metrics{Running: 4 * time.Second, Idle: 3 * time.Second}
	m := core.Metrics{Running: 10 * time.Second, Idle: 7 * time.Second}
	assert.Equal(t, core.Utilization{Idle: 4 * time.Second, Active: 2 * time.Second, Utilization: 2.0 / 6},
		m.UtilizationSince(prev))
	assert.Equal(t, core.Utilization{}, m.UtilizationSince(m), "no time between the readings")
}

// Quantile(q) is the upper bound of the bucket that holds the sample of
// rank ceil(q*Count), or Max if that is smaller.
func TestHistogramQuantile(t *testing.T) {
	var h core.Histogram
	_, hi1 := core.BucketBounds(1)
	lo50, hi50 := core.BucketBounds(50)
	h.Buckets[1], h.Buckets[50] = 1, 1
	h.Count, h.Max = 2, lo50+1
	assert.Equal(t, hi1, h.Quantile(0.5), "the first sample's bucket")
	assert.Equal(t, h.Max, h.Quantile(0.51), "the second sample's bucket, capped at Max")
	h.Max = hi50 + 1
	assert.Equal(t, hi50, h.Quantile(1))
}

// Running, Idle, Age and the timers' lateness are durations within the
// runs, however long ago the loop was made: read from the loop, from
// another goroutine while it blocks in its driver, and after the run, none
// exceeds the time since the test began the run.
func TestMetricsTimeIsTheRunsOnly(t *testing.T) {
	d := newBlockingDriver()
	l := core.New(d, core.MadeAgo(time.Hour))
	t.Cleanup(func() { _ = l.Close() })
	began := time.Now()
	var inside core.Metrics
	var insideBound time.Duration
	l.Delay(0, func(core.CallbackID) {
		inside = l.Metrics()
		insideBound = time.Since(began)
	})
	hold := l.Delay(time.Hour, func(core.CallbackID) {})
	done := make(chan error)
	go func() { done <- l.Run() }()
	<-d.blocked
	outside := l.Metrics()
	outsideBound := time.Since(began)
	require.NoError(t, l.Post(func() { l.Cancel(hold) }))
	require.NoError(t, <-done)
	after := l.Metrics()
	afterBound := time.Since(began)

	assert.LessOrEqual(t, inside.Running, insideBound, "from the loop")
	assert.LessOrEqual(t, outside.Running, outsideBound, "from another goroutine")
	assert.LessOrEqual(t, outside.Idle, outside.Running, "from another goroutine")
	assert.LessOrEqual(t, outside.Age, outsideBound, "from another goroutine")
	assert.LessOrEqual(t, after.Running, afterBound, "after the run")
	assert.Equal(t, uint64(1), after.TimerLateness.Count)
	assert.LessOrEqual(t, after.TimerLateness.Max, afterBound, "the timer's lateness")
}

// A loop that never blocks publishes its metrics every PublishEvery ticks,
// not every tick (each publication costs a mutex and a copy of about 1
// KiB): another goroutine sees Ticks move while the run goes on, and only
// ever at a multiple of PublishEvery. The run goes on until the reader has
// seen two publications, or for 10 s: a hang guard, short enough that a
// loop that never publishes fails the test instead of outlasting a
// mutation run's timeout.
func TestMetricsPublishedEveryPublishEveryTicks(t *testing.T) {
	l := newLoop(t)
	var seenTwo, ended atomic.Bool
	deadline := time.Now().Add(10 * time.Second)
	var fn func(core.CallbackID)
	fn = func(core.CallbackID) {
		if !seenTwo.Load() && time.Now().Before(deadline) {
			l.Defer(fn)
		}
	}
	l.Defer(fn)
	var seen []uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !seenTwo.Load() && !ended.Load() {
			if n := l.Metrics().Ticks; n != 0 && (len(seen) == 0 || seen[len(seen)-1] != n) {
				seen = append(seen, n)
				seenTwo.Store(len(seen) == 2)
			}
		}
	}()
	require.NoError(t, l.Run())
	ended.Store(true)
	<-done
	require.True(t, seenTwo.Load(), "while the run went on, another goroutine saw %v as Ticks", seen)
	for _, n := range seen {
		assert.Zero(t, n%core.PublishEvery, "Ticks published at %d", n)
	}
}
