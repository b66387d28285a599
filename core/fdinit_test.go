package core_test

import (
	"errors"
	"math"
	"net"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// Init takes every number a descriptor may have, 0 to MaxInt32 (the
// driver's token keeps 32 bits of it), and refuses the others with
// ErrUnsupported. The numbers are fake (the loop reads no identity), and
// the FDs are never closed.
func TestFDInitTakesEveryDescriptorNumber(t *testing.T) {
	l := core.New(newTimerDriver(), core.WithoutFileIDs())
	defer l.Close()
	past := int64(math.MaxInt32) + 1 // where int has 32 bits, a negative number
	for _, c := range []struct {
		fd int
		ok bool
	}{{0, true}, {math.MaxInt32, true}, {-1, false}, {int(past), false}} {
		var p core.FD
		err := p.Init(l, c.fd, net.ErrClosed)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("Init(%d): %v, want it taken: %v (else ErrUnsupported)", c.fd, err, c.ok)
		}
	}
}
