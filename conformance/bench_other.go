//go:build !unix && !windows

package conformance

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// benchCases would need socketpairs, which this suite makes only on unix;
// the skip says so rather than leaving the benchmarks out.
func benchCases() []benchCase {
	return []benchCase{{"FdCases", func(b *testing.B, _ core.Driver) {
		b.Skip("the driver benchmarks use socketpairs, which this suite makes only on unix")
	}}}
}
