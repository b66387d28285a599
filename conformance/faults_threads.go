package conformance

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

// loopFactoryCase is a loop-level case that makes its own loops, each on a
// fresh driver from the factory under test: several loops at once, or a
// loop with options. Every loop it makes has a watchdog and is closed when
// the case ends. newLoop must be called from the case's own goroutine (it
// may fail the case).
type loopFactoryCase struct {
	Name string
	Fn   func(t *testing.T, newLoop func(opts ...core.Option) *core.Loop)
}

// loopFactoryCases lists the loop-level cases that make their own loops.
func loopFactoryCases() []loopFactoryCase {
	return []loopFactoryCase{
		// Eight loops, each on its own driver, run on eight goroutines at
		// once, each with timers, an fd and fibers: they share nothing, so
		// under -race no access conflicts, and each finishes its own work.
		{"FaultEightLoopsOnEightGoroutines", faultEightLoops},
		// The watchdog (WithWatchdog) reports a callback stuck in a tight
		// loop, and one stuck in time.Sleep, while it still runs: its id,
		// and its name in the stack of its fiber (observe.go).
		{"WatchdogReportsCallbackInTightLoop", watchdogTightLoop},
		{"WatchdogReportsCallbackInSleep", watchdogSleep},
		// A fiber that readiness runs after a wait in the driver, blocked
		// in a channel receive, is reported once per call site
		// (core.WithBlockedReport, blocked.go).
		{"BlockedCallReportedAfterWaitInDriver", blockedAfterWaitInDriver},
	}
}

func runLoopFactoryCase(t *testing.T, newDriver func() (core.Driver, error), c loopFactoryCase) {
	// Added first, so it runs last: after the cleanups that close the loops.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	c.Fn(t, func(opts ...core.Option) *core.Loop {
		t.Helper()
		d, err := newDriver()
		if err != nil {
			t.Fatalf("new driver: %v", err)
		}
		l := core.New(d, opts...)
		stop := watchdog(t, l)
		t.Cleanup(func() {
			stop()
			if err := l.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return l
	})
}

// faultThreadCases are the cases about the goroutine and OS thread a loop
// runs on.
func faultThreadCases() []Case {
	return []Case{
		// A loop run from a goroutine locked to its OS thread (a GUI or cgo
		// main thread), then from an unlocked one, then locked again: the
		// runtime refuses to switch to a coroutine from another lock state
		// than it was made in, so fibers made (and pooled) in one run must
		// still work in the next. Timers, a suspended callback fiber and a
		// main Suspend run every time.
		{"FaultLoopOnLockedThread", faultLockedThread},
	}
}

// faultWork is one loop's share of work: timers, fibers suspended and
// resumed by a timer, a main Suspend, and an fd. It reports what went
// wrong instead of failing, so that it may run on any goroutine.
func faultWork(l *core.Loop, seed uint64, pingPong func(*core.Loop, int, func(int))) []string {
	const timers, fibers, bytes = 50, 50, 20
	var errs []string
	rng := rand.New(rand.NewPCG(seed, 8))
	fired := 0
	for range timers {
		l.Delay(time.Duration(rng.Int64N(int64(3*time.Millisecond))), func(core.CallbackID) { fired++ })
	}
	var ss []*core.Suspension
	resumed := 0
	for i := range fibers {
		l.Defer(func(core.CallbackID) {
			s := l.Suspension()
			ss = append(ss, s)
			v, err := s.Suspend()
			if err != nil || v != i {
				errs = append(errs, fmt.Sprintf("fiber %d resumed with %v, %v", i, v, err))
			}
			resumed++
		})
	}
	l.Delay(2*time.Millisecond, func(core.CallbackID) {
		for i, s := range ss {
			s.Resume(i)
		}
	})
	got := -1
	pingPong(l, bytes, func(n int) { got = n })
	main := l.Suspension()
	l.Delay(time.Millisecond, func(core.CallbackID) { main.Resume("main") })
	if v, err := main.Suspend(); err != nil || v != "main" {
		errs = append(errs, fmt.Sprintf("main Suspend returned %v, %v", v, err))
	}
	if err := l.Run(); err != nil {
		errs = append(errs, fmt.Sprintf("Run: %v", err))
	}
	if fired != timers || resumed != fibers || got != bytes {
		errs = append(errs, fmt.Sprintf("timers %d/%d, fibers resumed %d/%d, bytes read %d/%d",
			fired, timers, resumed, fibers, got, bytes))
	}
	if live := l.Stats().FibersLive; live != 0 {
		errs = append(errs, fmt.Sprintf("%d fibers live after Run", live))
	}
	return errs
}

func faultEightLoops(t *testing.T, newLoop func(...core.Option) *core.Loop) {
	const n = 8
	loops := make([]*core.Loop, n)
	pingPongs := make([]func(*core.Loop, int, func(int)), n)
	for i := range loops {
		loops[i] = newLoop()
		pingPongs[i] = faultPingPong(t)
	}
	errs := make([][]string, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, l := range loops {
		wg.Go(func() {
			<-start // all at once, so that the loops really overlap
			for round := range 3 {
				for _, e := range faultWork(l, uint64(i*10+round), pingPongs[i]) {
					errs[i] = append(errs[i], fmt.Sprintf("round %d: %s", round, e))
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for i, es := range errs {
		for _, e := range es {
			t.Errorf("loop %d: %s", i, e)
		}
	}
}

func faultLockedThread(t *testing.T, l *core.Loop) {
	pingPong := faultPingPong(t)
	for i, locked := range []bool{true, false, true, false} {
		done := make(chan []string)
		go func() {
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			done <- faultWork(l, uint64(i), pingPong)
		}()
		// A run that hangs is ended by the runner's watchdog.
		for _, e := range <-done {
			t.Errorf("run %d (locked %v): %s", i, locked, e)
		}
	}
	assert.Empty(t, l.Identifiers(), "callbacks left")
}
