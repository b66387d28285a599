//go:build windows

package afd_test

import (
	"testing"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/afd"
	"github.com/revoltgo/eventloop/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func() (core.Driver, error) { return afd.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return afd.New() })
}
