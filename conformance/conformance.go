// Package conformance is the suite every driver passes: one function over a
// driver factory, in the manner of nettest.TestConn and fstest.TestFS.
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() (core.Driver, error) { return mydriver.New() })
//	}
//
// Every case is a subtest with a fresh driver (and, for loop cases, a fresh
// core.Loop) that is closed afterwards, a watchdog, and a check that no
// goroutine started by the case survives it. Loop cases pin the behaviour of
// Revolt's DriverTest and EventLoopTest (named after them in Go form) and the
// five nesting cases of the non-nesting drain rule; driver cases pin every
// sentence of the core.Driver contract on the raw driver.
package conformance

import (
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

// Run runs the whole suite against the drivers newDriver makes.
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
}

// LoopCases lists every loop-level case, in a stable order.
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
	} {
		all = append(all, group...)
	}
	return all
}

// DriverCases lists every driver-level case, in a stable order.
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
