//go:build !unix && !windows

package conformance

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// driverFdCases would need socketpairs and pipes, which this suite makes
// only on unix; the skip says so rather than leaving the cases out.
func driverFdCases() []DriverCase {
	return []DriverCase{{"FdCases", func(t *testing.T, d core.Driver) {
		t.Skip("the driver fd cases use socketpairs and pipes, which this suite makes only on unix")
	}}}
}

func dcCheckWakeupAfterClose(t *testing.T, d core.Driver) {
	t.Helper()
	if err := d.Wakeup(); !errors.Is(err, core.ErrClosed) {
		t.Fatalf("Wakeup after Close: %v, want an error matching core.ErrClosed", err)
	}
}

func driverFactoryCases() []driverFactoryCase {
	return []driverFactoryCase{{"FactoryCases", func(t *testing.T, _ func() (core.Driver, error)) {
		t.Skip("the driver factory cases use socketpairs, which this suite makes only on unix")
	}}}
}
