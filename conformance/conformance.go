// Package conformance is the suite every driver passes: one function over a
// driver factory, in the manner of nettest.TestConn and fstest.TestFS.
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() (core.Driver, error) { return mydriver.New() })
//	}
//
// Run runs three groups of subtests. Loop cases pin the behaviour of
// Revolt's DriverTest and EventLoopTest (named after them in Go form), the
// five nesting cases of the non-nesting drain rule and the faults a loop
// must survive; each gets a fresh core.Loop on a fresh driver, or, for the
// few about several loops at once, makes its own. Driver cases pin the
// driver.Driver contract on the raw driver (contract.go lists each of its
// sentences beside the cases that check it); each gets a fresh driver, or
// makes its own for the sentences about more than one. The soak runs a
// mixed workload on one loop for a while (EnvSoak sets how long) and
// checks that nothing was lost or leaked. Every case has a watchdog, closes
// what it made, and checks that no goroutine it started survives it.
//
// Run the soak alone, and longer, with
//
//	EVENTLOOP_SOAK=60s go test -run 'TestConformance/^Soak$' ./drivers/epoll/
package conformance

import (
	"slices"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"go.uber.org/goleak"
)

// Case is one loop-level case: it gets a fresh loop on the driver under test.
type Case struct {
	Name string
	Fn   func(t *testing.T, l *core.Loop)
}

// DriverCase is one driver-level case: it gets a fresh driver.
type DriverCase struct {
	Name string
	Fn   func(t *testing.T, d core.Driver)
}

// caseTimeout bounds every case; a case that hangs is reported, not waited on.
const caseTimeout = 30 * time.Second

// Run runs the whole suite against the drivers newDriver makes: the
// groups Loop, Driver and Soak, each case a subtest. The soak measures the
// whole process, so no other test may run in parallel with Run.
func Run(t *testing.T, newDriver func() (core.Driver, error)) {
	t.Run("Loop", func(t *testing.T) {
		for _, c := range LoopCases() {
			t.Run(c.Name, func(t *testing.T) { runLoopCase(t, newDriver, c) })
		}
		for _, c := range loopFactoryCases() {
			t.Run(c.Name, func(t *testing.T) { runLoopFactoryCase(t, newDriver, c) })
		}
	})
	t.Run("Driver", func(t *testing.T) {
		for _, c := range DriverCases() {
			t.Run(c.Name, func(t *testing.T) { runDriverCase(t, newDriver, c) })
		}
		for _, c := range driverFactoryCases() {
			t.Run(c.Name, func(t *testing.T) { runDriverFactoryCase(t, newDriver, c) })
		}
	})
	t.Run("Soak", func(t *testing.T) {
		d, err := soakDuration()
		if err != nil {
			t.Fatal(err)
		}
		t.Run("MixedWorkload", func(t *testing.T) { soak(t, newDriver, d) })
	})
}

// LoopCases lists, in a stable order, the loop-level cases that each run
// on one fresh loop: every loop-level case but the few that make several
// loops of their own from the driver factory, which Run runs after these.
func LoopCases() []Case {
	var all []Case
	for _, group := range [][]Case{
		nestingCases(),
		driverTestCases(),
		driverOrderCases(),
		driverIOCases(),
		driverTimerCases(),
		driverErrorCases(),
		eventLoopTestCases(),
		revoltInternalCases(),
		faultCases(),
		observeCases(),
	} {
		for _, c := range group {
			if !rvCanRaise && slices.Contains(rvRaisingCases, c.Name) {
				continue
			}
			all = append(all, c)
		}
	}
	return all
}

// DriverCases lists, in a stable order, the driver-level cases that each
// run on one fresh driver: every driver-level case but the few that make
// drivers of their own from the factory (two at once, or one watched from
// before it exists to after Close), which Run runs after these.
func DriverCases() []DriverCase {
	var all []DriverCase
	for _, group := range [][]DriverCase{
		driverContractCases(),
	} {
		all = append(all, group...)
	}
	return all
}

func runLoopCase(t *testing.T, newDriver func() (core.Driver, error), c Case) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d, err := newDriver()
	if err != nil {
		t.Fatalf("new driver: %v", err)
	}
	l := core.New(d)
	defer func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	stop := watchdog(t, l)
	defer stop()
	c.Fn(t, l)
}

func runDriverCase(t *testing.T, newDriver func() (core.Driver, error), c DriverCase) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d, err := newDriver()
	if err != nil {
		t.Fatalf("new driver: %v", err)
	}
	defer d.Close()
	c.Fn(t, d)
}

// watchdog stops a loop that is still running after caseTimeout, and fails
// the case, so that a hang shows as a failure with a name instead of a
// killed test binary.
func watchdog(t *testing.T, l *core.Loop) (stop func()) {
	tm := time.AfterFunc(caseTimeout, func() {
		t.Errorf("watchdog: case still running after %v; stopping the loop", caseTimeout)
		_ = l.Post(l.Stop)
	})
	return func() { tm.Stop() }
}
