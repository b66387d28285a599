package core_test

import (
	"errors"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watchdog's rules (WithWatchdog): a run past the threshold is reported
// once while it runs, with its kind and the stack of its fiber, and once
// more when it returns (Done); reports come from the watchdog's goroutine,
// which Close ends (TestMain's goleak checks that).

const (
	wdThreshold = 20 * time.Millisecond
	wdBlock     = 100 * time.Millisecond
	// wdGuard is how long a stuck run waits for its report: a hang guard.
	wdGuard = time.Minute
)

// reports collects the watchdog's reports; the report function runs on the
// watchdog's goroutine.
type reports struct {
	mu  sync.Mutex
	got []core.SlowCallback
}

func (r *reports) add(s core.SlowCallback) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *reports) all() []core.SlowCallback {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]core.SlowCallback(nil), r.got...)
}

// running counts the reports of runs still running whose stack shows
// frame.
func (r *reports) running(frame string) (n int) {
	for _, s := range r.all() {
		if !s.Done && strings.Contains(s.Stack, frame) {
			n++
		}
	}
	return n
}

// stuckUntil keeps a run going until cond holds (the watchdog has reported
// it), or for wdGuard: the report is an event to wait for, where a fixed
// sleep would guess how soon a loaded machine schedules the watchdog.
func stuckUntil(cond func() bool) {
	for deadline := time.Now().Add(wdGuard); !cond() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// stuckUntilReported keeps a run going until the watchdog has reported
// (still running) a run whose stack shows frame, n times in all.
func (r *reports) stuckUntilReported(frame string, n int) {
	stuckUntil(func() bool { return r.running(frame) >= n })
}

func newWatchedLoop(t *testing.T, r *reports, opts ...core.Option) *core.Loop {
	t.Helper()
	l := core.New(newTimerDriver(), append(opts, core.WithWatchdog(wdThreshold, r.add))...)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// stuckMicrotaskForWatchdog, stuckPostForWatchdog, stuckHandlerForWatchdog
// and stuckResumedForWatchdog are named so that the stacks show them; each
// runs until the watchdog has reported it.
func stuckMicrotaskForWatchdog(r *reports) { r.stuckUntilReported("stuckMicrotaskForWatchdog", 1) }
func stuckPostForWatchdog(r *reports)      { r.stuckUntilReported("stuckPostForWatchdog", 1) }
func stuckHandlerForWatchdog(r *reports)   { r.stuckUntilReported("stuckHandlerForWatchdog", 1) }
func stuckResumedForWatchdog(r *reports)   { r.stuckUntilReported("stuckResumedForWatchdog", 1) }

// A microtask, a post, the error handler and a resumed fiber are each
// reported with their kind, a stack inside them, and then Done.
func TestWatchdogReportsEveryKindOfRun(t *testing.T) {
	var r reports
	l := newWatchedLoop(t, &r, core.WithTracing())
	l.SetErrorHandler(func(error) { stuckHandlerForWatchdog(&r) })
	var deferID core.CallbackID
	deferID = l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		l.Queue(func() { s.Resume(nil) })
		_, _ = s.Suspend()
		stuckResumedForWatchdog(&r)
	})
	l.Queue(func() { stuckMicrotaskForWatchdog(&r) })
	require.NoError(t, l.Post(func() { stuckPostForWatchdog(&r) }))
	l.Delay(time.Millisecond, func(core.CallbackID) { panic("boom") })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())

	got := r.all()
	want := map[string]string{
		"microtask":     "stuckMicrotaskForWatchdog",
		"post":          "stuckPostForWatchdog",
		"error handler": "stuckHandlerForWatchdog",
		"resumed defer": "stuckResumedForWatchdog",
	}
	for kind, frame := range want {
		var running, done *core.SlowCallback
		nRunning, nDone := 0, 0
		for i := range got {
			if got[i].Kind != kind {
				continue
			}
			if got[i].Done {
				done = &got[i]
				nDone++
			} else {
				running = &got[i]
				nRunning++
			}
		}
		// One report while running and one Done per slow run. (A quick
		// run that a loaded machine stalls past the threshold may be
		// reported too: only the slow runs' kinds are counted.)
		assert.Equal(t, 1, nRunning, "reports of the %s while it ran: %v", kind, got)
		assert.Equal(t, 1, nDone, "Done reports of the %s: %v", kind, got)
		if !assert.NotNil(t, running, "no report of the %s while it ran; got %v", kind, got) {
			continue
		}
		assert.Contains(t, running.Stack, frame, "%s: the stack does not show where it is stuck", kind)
		assert.GreaterOrEqual(t, running.Elapsed, wdThreshold, kind)
		if assert.NotNil(t, done, "no Done report of the %s", kind) {
			// It ran on after the report: Done times the whole run.
			assert.GreaterOrEqual(t, done.Elapsed, running.Elapsed, kind)
			assert.Empty(t, done.Stack)
		}
		if kind == "resumed defer" {
			assert.Equal(t, deferID, running.ID, "a resumed fiber is reported as the callback it runs")
			assert.Equal(t, core.TypeDefer, running.Type)
			assert.Contains(t, running.Created, "TestWatchdogReportsEveryKindOfRun", "with tracing, where the callback was created")
		} else {
			assert.Zero(t, running.ID, kind)
		}
	}
	m := l.Metrics()
	assert.GreaterOrEqual(t, m.Slowest.Took, wdThreshold, "the slowest run, with the watchdog on")
}

// A quick run is never reported, and a run that suspends is timed up to
// its Suspend, not while it is suspended. The threshold is a second: a
// quick run is reported only if the machine stalls it that long (a bound
// generous enough for a loaded runner; the claim is that quick runs are
// not reported, not how quick they are). The suspension is timed from
// inside, and the slowest run must be shorter than it: timing the
// suspension too would make it at least as long.
func TestWatchdogIgnoresQuickAndSuspendedRuns(t *testing.T) {
	var r reports
	l := core.New(newTimerDriver(), core.WithWatchdog(time.Second, r.add))
	t.Cleanup(func() { _ = l.Close() })
	var suspended time.Duration
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		l.Delay(wdBlock, func(core.CallbackID) { s.Resume(nil) })
		at := time.Now()
		_, _ = s.Suspend()
		suspended = time.Since(at)
	})
	for range 100 {
		l.Defer(func(core.CallbackID) {})
	}
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.Empty(t, r.all())
	assert.GreaterOrEqual(t, suspended, wdBlock)
	assert.Less(t, l.Metrics().Slowest.Took, suspended)
}

// A report function that panics is recovered: the loop goes on, and the
// next reports still come. Each slow defer runs until its own report has
// come (the first, then the third call).
func TestWatchdogReportPanicIsRecovered(t *testing.T) {
	var out testlog.Buffer
	prev := log.Writer()
	log.SetOutput(&out)
	defer log.SetOutput(prev)
	var mu sync.Mutex
	calls := 0
	l := core.New(newTimerDriver(), core.WithWatchdog(wdThreshold, func(core.SlowCallback) {
		mu.Lock()
		calls++
		mu.Unlock()
		panic("report failed")
	}))
	defer l.Close()
	ran := 0
	for i := range 2 {
		l.Defer(func(core.CallbackID) {
			stuckUntil(func() bool {
				mu.Lock()
				defer mu.Unlock()
				return calls >= 2*i+1
			})
			ran++
		})
	}
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.Equal(t, 2, ran)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 4, calls, "two slow defers: two reports while running, two Done")
	// The first panic is logged, with its value; the later ones are not.
	logged := out.String()
	assert.Equal(t, 1, strings.Count(logged, "the watchdog's report function panicked"), logged)
	assert.Contains(t, logged, "report failed")
}

// WithWatchdog panics, naming the threshold, for a threshold that is not
// positive: a programmer error.
func TestWatchdogThresholdMustBePositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		assert.PanicsWithValue(t,
			"eventloop: WithWatchdog called with a threshold of "+d.String()+"; it must be positive",
			func() { core.WithWatchdog(d, nil) })
	}
}

// EVENTLOOP_DEBUG_SLOW: a positive duration turns the watchdog on, 0 is off; a bad
// value is an error naming the variable and the value, which core.New
// ignores (it cannot fail).
func TestDebugSlowFromEnv(t *testing.T) {
	t.Setenv(core.EnvDebugSlow, "")
	d, err := core.DebugSlowFromEnv()
	require.NoError(t, err)
	assert.Zero(t, d)
	t.Setenv(core.EnvDebugSlow, "150ms")
	d, err = core.DebugSlowFromEnv()
	require.NoError(t, err)
	assert.Equal(t, 150*time.Millisecond, d)
	for _, off := range []string{"0", "0s", "0ms"} { // off, as unset
		t.Setenv(core.EnvDebugSlow, off)
		d, err = core.DebugSlowFromEnv()
		require.NoError(t, err, off)
		assert.Zero(t, d, off)
	}
	for _, bad := range []string{"soon", "-5ms", "100"} {
		t.Setenv(core.EnvDebugSlow, bad)
		_, err := core.DebugSlowFromEnv()
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), core.EnvDebugSlow)
		assert.Contains(t, err.Error(), `"`+bad+`"`)
		l := core.New(newTimerDriver()) // ignored, no panic
		l.Defer(func(core.CallbackID) {})
		require.NoError(t, l.Run())
		require.NoError(t, l.Close())
	}
}

// With EVENTLOOP_DEBUG_SLOW set, core.New watches: the slowest callback is
// timed (Metrics.Slowest is only measured with the watchdog on).
func TestDebugSlowEnvTurnsWatchdogOn(t *testing.T) {
	t.Setenv(core.EnvDebugSlow, "1h")
	l := core.New(newTimerDriver())
	defer l.Close()
	id := l.Defer(func(core.CallbackID) { time.Sleep(time.Millisecond) })
	require.NoError(t, l.Run())
	s := l.Metrics().Slowest
	assert.Equal(t, id, s.ID)
	assert.Equal(t, "defer", s.Kind)
	assert.GreaterOrEqual(t, s.Took, time.Millisecond)
}

// stuckAcrossRunsForWatchdog names the slow defers of TestWatchdogAcrossRuns.
func stuckAcrossRunsForWatchdog(r *reports, n int) {
	r.stuckUntilReported("stuckAcrossRunsForWatchdog", n)
}

// The watchdog goroutine sleeps between runs and comes back for the next;
// Close ends it even if no run ever began, or one is parked mid-tick.
func TestWatchdogAcrossRuns(t *testing.T) {
	var r reports
	l := newWatchedLoop(t, &r)
	for i := range 3 {
		l.Defer(func(core.CallbackID) { stuckAcrossRunsForWatchdog(&r, i+1) })
		require.NoError(t, l.Run())
		// The watchdog parks between runs: the next run must wake it.
		stuckUntil(func() bool { return core.WatchdogParked(l) })
		require.True(t, core.WatchdogParked(l), "the watchdog did not park after run %d", i)
	}
	require.NoError(t, l.Close())
	assert.Equal(t, 3, r.running("stuckAcrossRunsForWatchdog"), "%v", r.all())
	done := 0
	for _, s := range r.all() {
		if s.Done && s.Kind == "defer" {
			done++
		}
	}
	assert.Equal(t, 3, done, "Done reports: %v", r.all())

	idle := core.New(newTimerDriver(), core.WithWatchdog(time.Second, nil))
	require.NoError(t, idle.Close())

	l2 := core.New(newTimerDriver(), core.WithWatchdog(time.Second, nil))
	l2.Defer(func(core.CallbackID) { panic(errors.New("stop mid-tick")) })
	l2.Defer(func(core.CallbackID) {})
	require.Error(t, l2.Run())
	require.NoError(t, l2.Close())
}

func TestSlowCallbackString(t *testing.T) {
	s := core.SlowCallback{ID: 1 << 24, Type: core.TypeDefer, Kind: "defer", Fiber: 3,
		Elapsed: 120 * time.Millisecond, Stack: "goroutine 9 [sleep]:\nmain.f()"}
	assert.True(t, strings.HasPrefix(s.String(), "eventloop: slow defer callback cb1 still running after 120ms (fiber 3)\ngoroutine 9"), s.String())
	s.Done, s.Stack = true, ""
	assert.Equal(t, "eventloop: slow defer callback cb1 returned after 120ms (fiber 3)", s.String())
}

// stuckHintedForWatchdog is the frame that the test's hint recognises.
func stuckHintedForWatchdog(r *reports) { r.stuckUntilReported("stuckHintedForWatchdog", 1) }

// A hint added with AddWatchdogHint reads the stack of a run being
// reported and says what it sees, in the report and in its String; a
// stack it does not recognise gets no hint, and Done reports none.
func TestWatchdogHint(t *testing.T) {
	core.AddWatchdogHint(func(stack string) string {
		if strings.Contains(stack, "stuckHintedForWatchdog") {
			return "stuckHintedForWatchdog sleeps: do not"
		}
		return ""
	})
	var r reports
	l := newWatchedLoop(t, &r)
	l.Defer(func(core.CallbackID) { stuckHintedForWatchdog(&r) })
	l.Defer(func(core.CallbackID) { stuckMicrotaskForWatchdog(&r) })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	var hinted, plain int
	for _, s := range r.all() {
		switch {
		case s.Done:
			assert.Empty(t, s.Hint, "a Done report")
		case strings.Contains(s.Stack, "stuckHintedForWatchdog"):
			hinted++
			assert.Equal(t, "stuckHintedForWatchdog sleeps: do not", s.Hint)
			assert.Contains(t, s.String(), "still running after")
			assert.Contains(t, s.String(), ": stuckHintedForWatchdog sleeps: do not")
		default:
			// (Only the other slow run is counted: a quick run that a
			// loaded machine stalls may be reported too, and gets no hint.)
			if strings.Contains(s.Stack, "stuckMicrotaskForWatchdog") {
				plain++
			}
			assert.Empty(t, s.Hint, "a stack the hint does not know")
		}
	}
	assert.Equal(t, 1, hinted, "reports of the hinted run")
	assert.Equal(t, 1, plain, "reports of the other run")
	assert.Panics(t, func() { core.AddWatchdogHint(nil) })
}

// stuckTinyForWatchdog is named so that the stack shows it.
func stuckTinyForWatchdog(r *reports) { r.stuckUntilReported("stuckTinyForWatchdog", 1) }

// A threshold of a nanosecond, below what the watchdog polls at (every
// threshold/4, and no more often than every 100 µs), is a working
// threshold: a run past it is reported like any other.
func TestWatchdogWithATinyThreshold(t *testing.T) {
	var r reports
	l := core.New(newTimerDriver(), core.WithWatchdog(time.Nanosecond, r.add))
	defer l.Close()
	l.Defer(func(core.CallbackID) { stuckTinyForWatchdog(&r) })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.Equal(t, 1, r.running("stuckTinyForWatchdog"))
}
