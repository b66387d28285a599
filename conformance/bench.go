package conformance

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// Benchmark measures a driver with the same code, and under the same names,
// as every other driver, so that one run lines them up side by side:
//
//	func BenchmarkDriver(b *testing.B) {
//		conformance.Benchmark(b, func() (core.Driver, error) { return mydriver.New() })
//	}
//
//	go test -run XXX -bench Driver ./drivers/...
//
// Every sub-benchmark gets a fresh driver, reports allocations, and closes
// the driver and every fd it opened. A driver this build cannot make
// (errors.ErrUnsupported) is skipped, saying why.
func Benchmark(b *testing.B, newDriver func() (core.Driver, error)) {
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			d, err := newDriver()
			if errors.Is(err, errors.ErrUnsupported) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatalf("new driver: %v", err)
			}
			// Closed before the case's fds, which b.Cleanup closes.
			defer d.Close()
			b.ReportAllocs()
			c.fn(b, d)
		})
	}
}

type benchCase struct {
	name string
	fn   func(b *testing.B, d core.Driver)
}
