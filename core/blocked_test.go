package core_test

import (
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The blocked-call report's rules (WithBlockedReport): a run that keeps
// the loop's goroutine blocked in the runtime or a syscall for a few
// milliseconds is reported once per call site, on by default, naming the
// call, its site and the fix; a run that computes is not; the sampler's
// goroutine ends with Close (TestMain's leakcheck); the report can be
// turned off.

// blockedRecorder collects the reports and the sampler's looks at stacks.
type blockedRecorder struct {
	mu      sync.Mutex
	got     []core.BlockedCall
	looks   atomic.Int32 // looks that found the fiber blocked
	running atomic.Int32 // looks that found it running Go code
	looked  chan struct{}
}

func newBlockedRecorder() *blockedRecorder {
	return &blockedRecorder{looked: make(chan struct{}, 1)}
}

func (r *blockedRecorder) add(c core.BlockedCall) {
	r.mu.Lock()
	r.got = append(r.got, c)
	r.mu.Unlock()
}

func (r *blockedRecorder) all() []core.BlockedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]core.BlockedCall(nil), r.got...)
}

func (r *blockedRecorder) look(_ string, blocked bool) {
	if !blocked {
		r.running.Add(1)
		return
	}
	r.looks.Add(1)
	select {
	case r.looked <- struct{}{}:
	default:
	}
}

func (r *blockedRecorder) loop(t *testing.T) *core.Loop {
	return newLoop(t, core.WithBlockedReport(r.add), core.WithBlockedLooks(r.look))
}

// blockOnChannel is the call site of the channel test: a plain receive,
// which the sampler's look ends (or a guard, so that a sampler that never
// looks fails the test instead of hanging it).
func blockOnChannel(ch <-chan struct{}) {
	<-ch
}

func guard(ch chan<- struct{}) *time.Timer {
	return time.AfterFunc(wdGuard, func() { ch <- struct{}{} })
}

func TestBlockedChannelReportedOncePerSite(t *testing.T) {
	r := newBlockedRecorder()
	l := r.loop(t)
	defer guard(r.looked).Stop()
	const runs = 3
	n := 0
	var next func(core.CallbackID)
	next = func(core.CallbackID) {
		blockOnChannel(r.looked)
		if n++; n < runs {
			l.Defer(next)
		}
	}
	l.Defer(next)
	require.NoError(t, l.Run())
	// The runs were looked at, blocked (each once, unless a loaded machine
	// let a look come twice in one), and only the first was reported.
	assert.GreaterOrEqual(t, r.looks.Load(), int32(runs))
	got := r.all()
	require.Len(t, got, 1, "one report for one call site")
	c := got[0]
	assert.Equal(t, "runtime.chanrecv1", c.Call)
	assert.Contains(t, c.Site, "core_test.blockOnChannel")
	assert.True(t, strings.HasSuffix(c.File, "blocked_test.go"), c.File)
	assert.Contains(t, c.Fix, "core.Await")
	assert.GreaterOrEqual(t, c.Elapsed, 5*time.Millisecond)
	assert.Contains(t, c.Stack, "blockOnChannel")
	assert.True(t, strings.HasPrefix(c.Stack, "fiber [waiting]:"), c.Stack)
	s := c.String()
	assert.Contains(t, s, "runtime.chanrecv1 called by github.com/revoltgo/eventloop/core_test.blockOnChannel")
	assert.Contains(t, s, "EVENTLOOP_BLOCKED=0")
}

// sleepUntilLooked is the call site of the sleep test: 30 ms sleeps until
// the sampler has looked.
func sleepUntilLooked(looked <-chan struct{}) {
	for {
		time.Sleep(30 * time.Millisecond)
		select {
		case <-looked:
			return
		default:
		}
	}
}

func TestBlockedSleepReported(t *testing.T) {
	r := newBlockedRecorder()
	l := r.loop(t)
	defer guard(r.looked).Stop()
	l.Defer(func(core.CallbackID) { sleepUntilLooked(r.looked) })
	require.NoError(t, l.Run())
	got := r.all()
	require.Len(t, got, 1)
	assert.Equal(t, "time.Sleep", got[0].Call)
	assert.Contains(t, got[0].Site, "core_test.sleepUntilLooked")
}

// spinUntilLooked computes until the sampler has looked at it.
//
//go:noinline
func spinUntilLooked(r *blockedRecorder) (n int) {
	for deadline := time.Now().Add(wdGuard); r.running.Load()+r.looks.Load() == 0 && time.Now().Before(deadline); {
		for range 1000 {
			n++
		}
	}
	return n
}

func TestBlockedNotForComputation(t *testing.T) {
	r := newBlockedRecorder()
	l := r.loop(t)
	l.Defer(func(core.CallbackID) { spinUntilLooked(r) })
	require.NoError(t, l.Run())
	require.NotZero(t, r.running.Load()+r.looks.Load(), "the sampler never looked at the computing fiber")
	assert.Empty(t, r.all(), "a computation is not a blocked call")
	assert.Zero(t, r.looks.Load(), "looks that found the computing fiber blocked")
}

// blockUntilLogged is the call site of the default test.
func blockUntilLogged(out *testlog.Buffer) {
	for deadline := time.Now().Add(wdGuard); !strings.Contains(out.String(), "blockUntilLogged") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBlockedLoggedByDefault(t *testing.T) {
	t.Setenv(core.EnvBlocked, "")
	var out testlog.Buffer
	prev := log.Writer()
	log.SetOutput(&out)
	defer log.SetOutput(prev)
	l := newLoop(t)
	l.Defer(func(core.CallbackID) { blockUntilLogged(&out) })
	require.NoError(t, l.Run())
	s := out.String()
	assert.Contains(t, s, "eventloop: a fiber has blocked the loop's goroutine for ")
	assert.Contains(t, s, "time.Sleep called by github.com/revoltgo/eventloop/core_test.blockUntilLogged")
	assert.Contains(t, s, "core.Await")
	assert.Equal(t, 1, strings.Count(s, "eventloop: a fiber has blocked"), s)
}

func TestBlockedReportOff(t *testing.T) {
	t.Setenv(core.EnvBlocked, "")
	assert.True(t, core.BlockedReportOn(newLoop(t)), "on by default")
	assert.False(t, core.BlockedReportOn(newLoop(t, core.WithBlockedReport(nil))))
	for _, v := range []string{"0", "off", "OFF", "false"} {
		t.Setenv(core.EnvBlocked, v)
		assert.False(t, core.BlockedReportOn(newLoop(t)), "%s=%s", core.EnvBlocked, v)
		assert.True(t, core.BlockedReportOn(newLoop(t, core.WithBlockedReport(func(core.BlockedCall) {}))),
			"the option overrides %s=%s", core.EnvBlocked, v)
	}
	// What core.New cannot read, it takes for on (eventloop.New fails).
	for _, v := range []string{"1", "on", "true", "no"} {
		t.Setenv(core.EnvBlocked, v)
		assert.True(t, core.BlockedReportOn(newLoop(t)), "%s=%s", core.EnvBlocked, v)
	}
}

// The report rounds Elapsed to a tenth of a millisecond.
func TestBlockedCallString(t *testing.T) {
	s := core.BlockedCall{Elapsed: 5_123_456 * time.Nanosecond, Call: "time.Sleep", Site: "main.f"}.String()
	assert.Contains(t, s, "for 5.1ms so far, in time.Sleep called by main.f", s)
}

// A report function that panics is recovered, and the panic logged.
func TestBlockedReportPanicLogged(t *testing.T) {
	var out testlog.Buffer
	prev := log.Writer()
	log.SetOutput(&out)
	defer log.SetOutput(prev)
	reported := make(chan struct{}, 1)
	l := core.New(newTimerDriver(), core.WithBlockedReport(func(core.BlockedCall) {
		select {
		case reported <- struct{}{}:
		default:
		}
		panic("report boom")
	}))
	defer guard(reported).Stop()
	l.Defer(func(core.CallbackID) { blockOnChannel(reported) })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close()) // the sampler has returned from the report
	s := out.String()
	assert.Contains(t, s, "the blocked-call report function panicked (recovered; later panics are not logged): report boom", s)
	assert.Equal(t, 1, strings.Count(s, "panicked"), s)
}

// samplerGuard is how long the tests of the sampler's sleep wait for it: a
// hang guard, short enough that a sampler that never sleeps or never wakes
// fails the test instead of outlasting a mutation run's timeout.
const samplerGuard = 10 * time.Second

// waitSamplerParked waits until l's blocked-call sampler sleeps until the
// loop wakes it.
func waitSamplerParked(t *testing.T, l *core.Loop) {
	t.Helper()
	for deadline := time.Now().Add(samplerGuard); !core.BlockedSamplerParked(l); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the blocked-call sampler never went to sleep")
		}
	}
}

// The sampler sleeps while the loop waits in its driver, and the loop
// wakes it when the wait ends: a post that then blocks is reported.
func TestBlockedSamplerSleepsInTheDriversWait(t *testing.T) {
	r := newBlockedRecorder()
	d := newBlockingDriver()
	l := core.New(d, core.WithBlockedReport(r.add), core.WithBlockedLooks(r.look))
	t.Cleanup(func() { _ = l.Close() })
	defer time.AfterFunc(samplerGuard, func() { r.looked <- struct{}{} }).Stop()
	hold := l.Delay(time.Hour, func(core.CallbackID) {})
	done := make(chan error)
	go func() { done <- l.Run() }()
	<-d.blocked
	waitSamplerParked(t, l)
	require.NoError(t, l.Post(func() {
		blockOnChannel(r.looked)
		l.Cancel(hold)
	}))
	require.NoError(t, <-done)
	got := r.all()
	require.Len(t, got, 1, "the post that blocked after the wait")
	assert.Contains(t, got[0].Site, "core_test.blockOnChannel")
}

// The sampler sleeps while no run is in progress, and the next run wakes
// it: a microtask queued before the run, the run's first user code, that
// blocks is reported.
func TestBlockedSamplerSleepsBetweenRuns(t *testing.T) {
	r := newBlockedRecorder()
	l := r.loop(t)
	defer time.AfterFunc(samplerGuard, func() { r.looked <- struct{}{} }).Stop()
	l.Defer(func(core.CallbackID) {}) // the first run starts the sampler
	require.NoError(t, l.Run())
	waitSamplerParked(t, l)
	l.Queue(func() { blockOnChannel(r.looked) })
	require.NoError(t, l.Run())
	got := r.all()
	require.Len(t, got, 1, "the microtask that blocked")
	assert.Contains(t, got[0].Site, "core_test.blockOnChannel")
}

// blockUntilProbed blocks until l's sampler probes the run in progress,
// and a little longer (briefly: this run is not to be reported).
func blockUntilProbed(t *testing.T, l *core.Loop) {
	for deadline := time.Now().Add(samplerGuard); !core.BlockedProbeSet(l); time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Error("the blocked-call sampler never probed the run")
			return
		}
	}
	time.Sleep(300 * time.Microsecond)
}

// A report's Elapsed counts the reported run only: a run that the sampler
// probed and that ended is not counted in the next one, whether that one
// is the next callback (its run begins) or a microtask that runs when a
// fiber suspends (the suspended one's run pauses). The reported run
// begins after the first one's end (firstEnded), so Elapsed is at most
// the time from then to the report.
func TestBlockedElapsedIsTheRunsOwn(t *testing.T) {
	for _, next := range []string{"callback", "microtask"} {
		t.Run(next, func(t *testing.T) {
			type report struct {
				c  core.BlockedCall
				at time.Time
			}
			var mu sync.Mutex
			var got []report
			unblock := make(chan struct{}, 1)
			l := newLoop(t, core.WithBlockedReport(func(c core.BlockedCall) {
				mu.Lock()
				got = append(got, report{c, time.Now()})
				mu.Unlock()
				if strings.Contains(c.Site, "blockOnChannel") {
					unblock <- struct{}{}
				}
			}))
			defer time.AfterFunc(samplerGuard, func() { unblock <- struct{}{} }).Stop()
			var firstEnded time.Time
			second := func() { blockOnChannel(unblock) }
			switch next {
			case "callback":
				l.Defer(func(core.CallbackID) {
					blockUntilProbed(t, l)
					firstEnded = time.Now()
				})
				l.Defer(func(core.CallbackID) { second() })
			case "microtask":
				l.Defer(func(core.CallbackID) {
					s := l.Suspension()
					l.Queue(func() {
						second()
						s.Resume(nil)
					})
					blockUntilProbed(t, l)
					firstEnded = time.Now()
					_, _ = s.Suspend()
				})
			}
			require.NoError(t, l.Run())
			mu.Lock()
			defer mu.Unlock()
			for _, r := range got {
				if strings.Contains(r.c.Site, "blockOnChannel") {
					assert.LessOrEqual(t, r.c.Elapsed, r.at.Sub(firstEnded), "Elapsed of the second run")
					return
				}
			}
			t.Fatalf("the second run was not reported: %+v", got)
		})
	}
}
