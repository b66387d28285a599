package conformance

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
	"go.uber.org/goleak"
)

// driverFactoryCase is a driver-level case that makes its own drivers with
// the factory under test (two at once, or one it watches from before New to
// after Close), closing every driver it makes.
type driverFactoryCase struct {
	Name string
	Fn   func(t *testing.T, newDriver func() (core.Driver, error))
}

func runDriverFactoryCase(t *testing.T, newDriver func() (core.Driver, error), c driverFactoryCase) {
	// A cleanup, not a defer: the drivers the case made are closed by
	// cleanups, which run after defers; this one, added first, runs last.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	c.Fn(t, newDriver)
}

// dcNewDriver makes a driver that is closed when the case ends.
func dcNewDriver(t *testing.T, newDriver func() (core.Driver, error)) core.Driver {
	t.Helper()
	d, err := newDriver()
	if err != nil {
		t.Fatalf("new driver: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
