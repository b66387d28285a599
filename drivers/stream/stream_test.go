package stream_test

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/stream"
	"github.com/revoltgo/eventloop/internal/leakcheck"
)

func TestMain(m *testing.M) {
	leakcheck.Main(m)
}

func TestConformance(t *testing.T) {
	d, err := stream.New()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	conformance.Run(t, func() (core.Driver, error) { return stream.New() })
}

func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return stream.New() })
}
