package conformance

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// EnvSoak is the environment variable that sets how long Run's soak runs
// its workload: a positive duration such as "10s" or "2m" (anything else
// fails the soak). Unset or empty, the soak runs for 2 s. A variable, not
// a flag: a flag declared here would be registered in every program that
// imports the package.
const EnvSoak = "EVENTLOOP_SOAK"

// defaultSoak is short enough for every driver's test in CI, long enough
// for every part of the workload to run thousands of times.
const defaultSoak = 2 * time.Second

// soakDuration reads EnvSoak.
func soakDuration() (time.Duration, error) {
	v := os.Getenv(EnvSoak)
	if v == "" {
		return defaultSoak, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 10s", EnvSoak, v)
	}
	return d, nil
}

const (
	// soakHeapSlack bounds the heap growth the soak accepts: the loop's tables
	// grow once to the workload's size and stay there (a few hundred KiB),
	// while the workload does some 300 000 operations a second without
	// -race, so a leak of a few dozen bytes per operation passes the bound
	// in the default 2 s, and one of a byte in a minute.
	soakHeapSlack = 8 << 20
	// soakGrace is how long after its duration the workload may take to
	// make progress in every part and wind down before the watchdog stops
	// the loop and fails the test.
	soakGrace = 30 * time.Second
	// soakSettle bounds the wait for goroutines that were told to end (an
	// Await goroutine after its Post) to be gone before they are counted.
	soakSettle = 2 * time.Second
)

// soak runs a mixed workload on one loop over a driver from newDriver for
// d, and beyond d until every part of it has made progress, and fails t if
// anything was lost or leaked. The workload, all at once:
// delays armed, cancelled, disabled and re-enabled in random order and
// repeats that cancel themselves; socketpairs with data flowing both ways,
// read by fibers suspended on OnReadable and by watchers enabled and
// disabled by a pacer; fibers suspended and resumed (or thrown into) by
// delays, by a repeat, and by microtasks; fibers in a loop of core.Await;
// and goroutines calling Post. Every part checks its
// results as it goes (timers never early, never after Cancel; bytes in
// order; posts in order; each fiber resumed with what it was promised), and
// at the end every counter must balance: every post ran, every fiber
// returned, every timer ran or was cancelled, every byte written was read,
// no callback is left registered.
//
// A warm-up run on a throwaway loop comes first, so that what the process
// creates once (the runtime's poller, the race detector's tables, the
// drivers' first fds) is in the baseline. Goroutines, open fds and the heap
// (after a GC) are then sampled before the loop is created, when it has
// run empty once, while the workload runs, after it has wound down with the
// loop still open, and after Close; the soak fails unless the loop at rest
// holds no goroutine but its pooled fibers and no fd beyond its own, Close
// brings goroutines and fds back to the baseline, and the heap grows by
// less than 8 MiB at each step. The figures are logged.
//
// The soak needs socketpairs: it skips where there are none. It measures
// the whole process, so it must not run in parallel with other tests.
func soak(t *testing.T, newDriver func() (core.Driver, error), d time.Duration) {
	if a, b, err := soakSocketpair(); err != nil {
		t.Skipf("soak: %v", err)
	} else {
		soakClose(a)
		soakClose(b)
	}
	warm := min(max(d/5, 200*time.Millisecond), 2*time.Second)
	wr := soakRun(t, newDriver, warm)
	if t.Failed() {
		return
	}
	before := soakTake(nil)
	r := soakRun(t, newDriver, d)
	after := soakSettled(before)

	t.Logf("warm-up %v (stop held back %d times): %s", warm, wr.holds, wr.counts)
	t.Logf("soak %v (its stop held back %d times for a part without progress), seed %d: %s", d, r.holds, r.seed, r.counts)
	t.Logf("loop: %+v", r.stats)
	first, last := r.during[0], r.during[len(r.during)-1]
	row := func(name string, f func(soakSample) string) {
		t.Logf("%-10s before %-8s idle loop %-8s during %s..%s  wound down %-8s closed %s",
			name, f(before), f(r.idle), f(first), f(last), f(r.quiesced), f(after))
	}
	row("goroutines", func(s soakSample) string { return fmt.Sprint(s.goroutines) })
	row("fds", func(s soakSample) string { return fmt.Sprint(s.fds) })
	row("heap", func(s soakSample) string { return soakMiB(s.heap) })
	t.Logf("fiber goroutines: idle loop %d, wound down %d (the pool)", r.idle.fiberG, r.quiesced.fiberG)

	if n := r.idle.goroutines + r.quiesced.fiberG - r.idle.fiberG; r.quiesced.goroutines > n {
		t.Errorf("wound down: %d goroutines, want at most %d (the idle loop's and its pooled fibers)", r.quiesced.goroutines, n)
	}
	if r.quiesced.fds > r.idle.fds {
		t.Errorf("wound down: %d fds open, want at most %d (the idle loop's)", r.quiesced.fds, r.idle.fds)
	}
	if after.goroutines > before.goroutines {
		t.Errorf("after Close: %d goroutines, want at most %d (before the loop)", after.goroutines, before.goroutines)
	}
	if after.fds > before.fds {
		t.Errorf("after Close: %d fds open, want at most %d (before the loop)", after.fds, before.fds)
	}
	soakHeapGrew(t, "during the workload", first, last)
	soakHeapGrew(t, "wound down, against the idle loop", r.idle, r.quiesced)
	soakHeapGrew(t, "after Close, against before the loop", before, after)
}

func soakHeapGrew(t *testing.T, what string, from, to soakSample) {
	if to.heap > from.heap+soakHeapSlack {
		t.Errorf("heap %s: %s to %s, more than %s of growth", what, soakMiB(from.heap), soakMiB(to.heap), soakMiB(soakHeapSlack))
	}
}

// soakMiB formats a byte count; below a MiB in KiB, since the heap of a
// test binary at rest is that small and its drift is the point.
func soakMiB(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}

// soakSample is the state of the whole process at one moment.
type soakSample struct {
	goroutines int
	fds        int
	heap       uint64 // live heap after a GC
	fiberG     int    // the loop's fiber goroutines, pooled ones included
}

// soakTake samples the process; with a loop it also reads the loop's
// fiber goroutines, so it must then run on the loop or while it is idle.
func soakTake(l *core.Loop) soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := soakSample{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc, fds: -1}
	if n, err := soakOpenFDs(); err == nil {
		s.fds = n
	}
	if l != nil {
		s.fiberG = l.Stats().FiberGoroutines
	}
	return s
}

// soakSettled samples the process once its goroutines and fds are down to
// want's, or after soakSettle: goroutines told to end take a moment to go.
func soakSettled(want soakSample) soakSample {
	deadline := time.Now().Add(soakSettle)
	for {
		s := soakTake(nil)
		if s.goroutines <= want.goroutines && s.fds <= want.fds || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type soakReport struct {
	seed     uint64
	counts   soakCounts
	stats    core.Stats
	idle     soakSample   // the loop after one empty Run
	during   []soakSample // taken on the loop while the workload runs
	quiesced soakSample   // Run returned and the socketpairs closed; not yet Close
	holds    int          // soakLoad.holds
}

// soakRun runs the workload for d on a fresh loop, checks its counters, and
// closes the loop.
func soakRun(t *testing.T, newDriver func() (core.Driver, error), d time.Duration) soakReport {
	t.Helper()
	drv, err := newDriver()
	if err != nil {
		t.Fatalf("new driver: %v", err)
	}
	l := core.New(drv)
	defer func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	// An empty Run starts what a loop starts once (its proxy goroutine), so
	// that the idle sample holds it.
	if err := l.Run(); err != nil {
		t.Fatalf("empty Run: %v", err)
	}
	r := soakReport{seed: uint64(time.Now().UnixNano()), idle: soakTake(l)}
	w := newSoakLoad(t, l, r.seed)
	defer func() {
		for _, fd := range w.fds {
			soakClose(fd)
		}
	}()
	if err := w.open(); err != nil {
		t.Fatalf("soak: %v", err)
	}
	w.start(d, max(d/10, 50*time.Millisecond))
	watchdog := time.AfterFunc(d+soakGrace, func() {
		t.Errorf("soak: still running %v after its end; stopping the loop", soakGrace)
		_ = l.Post(func() { t.Logf("soak state: %s", w.state()); l.Stop() })
	})
	err = l.Run()
	stopped := !watchdog.Stop()
	if err != nil {
		t.Fatalf("Run: %v (seed %d)", err, r.seed)
	}
	if stopped {
		t.FailNow()
	}
	r.stats, r.during = l.Stats(), w.samples
	w.check(r.stats)
	r.counts, r.holds = w.c, w.holds
	for _, fd := range w.fds {
		if err := soakClose(fd); err != nil {
			t.Errorf("close %d: %v", fd, err)
		}
	}
	w.fds = nil
	r.quiesced = soakSettledLoop(l, r.idle)
	if t.Failed() {
		t.Logf("seed %d; state: %s", r.seed, w.state())
	}
	return r
}

// soakSettledLoop is soakSettled for a loop at rest, which may also hold
// the fiber goroutines it pooled.
func soakSettledLoop(l *core.Loop, idle soakSample) soakSample {
	deadline := time.Now().Add(soakSettle)
	for {
		s := soakTake(l)
		if s.goroutines <= idle.goroutines+s.fiberG-idle.fiberG && s.fds <= idle.fds || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}
