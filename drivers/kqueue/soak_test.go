//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"flag"
	"testing"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
)

// The flag is the test binary's, not the conformance package's, so that no
// program importing conformance grows a -soak flag.
var soak = flag.Duration("soak", conformance.DefaultSoakDuration, "how long TestSoak runs its workload, e.g. go test -run Soak ./drivers/NAME/ -soak=60s")

func TestSoak(t *testing.T) {
	conformance.Soak(t, func() (core.Driver, error) { return kqueue.New() }, *soak)
}
