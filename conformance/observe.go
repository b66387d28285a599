package conformance

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Seeing inside a running loop: the watchdog and the metrics, on every
// driver. The watchdog reads a goroutine's stack from another goroutine
// while the loop is stuck, and the metrics time the waits in the driver,
// so both are driver-level facts as much as core's.

// A watched callback blocks for watchdogBlock at least, and until the
// watchdog has made its first report (or watchdogHang, a hang guard,
// has passed): a watchdog that a loaded machine makes late still reports
// while the callback runs, and only lower bounds are asserted of when.
const (
	watchdogThreshold = 20 * time.Millisecond
	watchdogBlock     = 100 * time.Millisecond
	watchdogHang      = 5 * time.Second
)

// observeCases are the loop cases about the metrics and Stop.
func observeCases() []Case {
	return []Case{
		// Timers due together whose callbacks each sleep 5 ms run 5, 10,
		// ... ms late: the lateness histogram's p50 shows it.
		{"MetricsTimerLatenessShowsBlockedLoop", metricsLateness},
		// A loop blocked in the driver counts the wait as idle; metrics
		// read from another goroutine meanwhile (go test -race) see it.
		{"MetricsIdleWhileBlockedInDriver", metricsIdle},
		// Stop from another goroutine wakes the loop out of a blocking
		// Wait, as Post does.
		{"StopFromAnotherGoroutineWakesLoop", stopFromGoroutine},
	}
}

// watchedRun is what a watchdog case saw: the reports, and whether the
// callback had returned when each came.
type watchedRun struct {
	mu       sync.Mutex
	reports  []core.SlowCallback
	returned []bool
}

// runWatched runs block in a Defer on a loop with a watchdog, and returns
// the callback's id and what the watchdog reported. block gets a channel
// closed at the watchdog's first report.
func runWatched(t *testing.T, newLoop func(...core.Option) *core.Loop, block func(reported <-chan struct{})) (core.CallbackID, *watchedRun) {
	var w watchedRun
	var done atomic.Bool
	reported := make(chan struct{})
	l := newLoop(core.WithWatchdog(watchdogThreshold, func(s core.SlowCallback) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.reports) == 0 {
			close(reported)
		}
		w.reports = append(w.reports, s)
		w.returned = append(w.returned, done.Load())
	}))
	id := l.Defer(func(core.CallbackID) {
		block(reported)
		done.Store(true)
	})
	if err := l.Run(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := l.Close(); err != nil { // the watchdog's last reports are made
		t.Fatalf("Close: %v", err)
	}
	return id, &w
}

// checkWatched checks the two reports: one while the callback ran, naming
// it and showing frame in its fiber's stack, and a Done one after.
func checkWatched(t *testing.T, id core.CallbackID, w *watchedRun, frame string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.reports) != 2 {
		t.Fatalf("%d reports, want 2 (one while running, one Done): %+v", len(w.reports), w.reports)
	}
	r, d := w.reports[0], w.reports[1]
	if r.Done || w.returned[0] {
		t.Errorf("the first report came after the callback returned (Done=%v)", r.Done)
	}
	if r.ID != id || r.Type != core.TypeDefer || r.Kind != "defer" {
		t.Errorf("report names %s (%s, %q), want %s (defer)", r.ID, r.Type, r.Kind, id)
	}
	if r.Elapsed < watchdogThreshold || r.Elapsed > d.Elapsed {
		t.Errorf("reported after %v: want at least the threshold %v, and at most the %v of the Done report", r.Elapsed, watchdogThreshold, d.Elapsed)
	}
	if !strings.Contains(r.Stack, frame) {
		t.Errorf("the stack does not show %s, where the callback is stuck:\n%s", frame, r.Stack)
	}
	if !d.Done || d.ID != id || d.Elapsed < watchdogBlock {
		t.Errorf("second report %+v: want Done for %s after at least %v", d, id, watchdogBlock)
	}
}

// spinForWatchdog spins in a loop with no function call until stop is set:
// only asynchronous preemption can take its stack.
func spinForWatchdog(stop *atomic.Bool) int {
	n := 0
	for !stop.Load() {
		n++
	}
	return n
}

// untilReported returns once reported is closed, or watchdogHang has
// passed, and block has passed since start.
func untilReported(start time.Time, reported <-chan struct{}) {
	select {
	case <-reported:
	case <-time.After(watchdogHang):
	}
	time.Sleep(time.Until(start.Add(watchdogBlock)))
}

func watchdogTightLoop(t *testing.T, newLoop func(...core.Option) *core.Loop) {
	id, w := runWatched(t, newLoop, func(reported <-chan struct{}) {
		var stop atomic.Bool
		start := time.Now()
		go func() {
			untilReported(start, reported)
			stop.Store(true)
		}()
		spinForWatchdog(&stop)
	})
	checkWatched(t, id, w, "conformance.spinForWatchdog")
}

// sleepForWatchdog blocks in time.Sleep, and then until the report.
func sleepForWatchdog(reported <-chan struct{}) {
	start := time.Now()
	time.Sleep(watchdogBlock)
	untilReported(start, reported)
}

func watchdogSleep(t *testing.T, newLoop func(...core.Option) *core.Loop) {
	id, w := runWatched(t, newLoop, sleepForWatchdog)
	checkWatched(t, id, w, "conformance.sleepForWatchdog")
}

func metricsLateness(t *testing.T, l *core.Loop) {
	const timers, nap = 8, 5 * time.Millisecond
	for range timers {
		l.Delay(time.Millisecond, func(core.CallbackID) { time.Sleep(nap) })
	}
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	h := l.Metrics().TimerLateness
	if h.Count != timers {
		t.Fatalf("%d lateness samples, want %d", h.Count, timers)
	}
	if p50 := h.Quantile(0.5); p50 < nap {
		t.Errorf("p50 lateness %v, want at least %v: each timer waited for the ones before", p50, nap)
	}
	if h.Max < (timers-1)*nap {
		t.Errorf("max lateness %v, want at least %v", h.Max, (timers-1)*nap)
	}
}

func metricsIdle(t *testing.T, l *core.Loop) {
	const wait = 60 * time.Millisecond
	var during core.Metrics
	got := make(chan struct{})
	// The timer and the reader start inside Run: the wait is then the
	// loop's alone, however late a loaded machine starts Run (a timer made
	// before Run counted that delay too, and the reader could read before
	// the loop ran at all).
	l.Defer(func(core.CallbackID) {
		l.Delay(wait, func(core.CallbackID) {})
		go func() {
			defer close(got)
			time.Sleep(wait / 2)
			during = l.Metrics()
		}()
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	<-got
	m := l.Metrics()
	if m.Idle < wait*3/4 || m.Idle > m.Running {
		t.Errorf("idle %v of %v running: the loop waited %v for its timer", m.Idle, m.Running, wait)
	}
	// Any idle time at all: the wait in progress is counted (how much of
	// it has passed is the machine's business).
	if during.Idle <= 0 {
		t.Errorf("read from another goroutine mid-wait: idle %v, want the wait so far (about %v)", during.Idle, wait/2)
	}
	if u := m.UtilizationSince(core.Metrics{}); u.Utilization > 0.5 {
		t.Errorf("utilization %.2f of a loop that mostly waited", u.Utilization)
	}
}

func stopFromGoroutine(t *testing.T, l *core.Loop) {
	id := l.Delay(time.Hour, func(core.CallbackID) {})
	ready := make(chan struct{})
	l.Defer(func(core.CallbackID) { close(ready) })
	go func() {
		<-ready
		time.Sleep(20 * time.Millisecond) // the loop is blocked by now
		l.Stop()
	}()
	start := time.Now()
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned %v after Stop", d)
	}
	l.Cancel(id)
}
