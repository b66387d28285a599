//go:build unix

package core_test

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// notOpen is an fd number that names no file: above any descriptor limit
// the tests run with, so closing it fails with EBADF and never closes a
// file of someone else's.
const notOpen = 1 << 30

// Close returns close's own error, from a fiber and from a goroutine: a
// descriptor that could not be closed is not reported closed.
func TestFDCloseReturnsCloseError(t *testing.T) {
	for _, fiber := range []bool{true, false} {
		t.Run(map[bool]string{true: "fiber", false: "goroutine"}[fiber], func(t *testing.T) {
			l := core.New(newTimerDriver(), core.WithoutFileIDs())
			defer l.Close()
			var p core.FD
			if err := p.Init(l, notOpen, net.ErrClosed); err != nil {
				t.Fatal(err)
			}
			var err error
			onFiber(t, l, fiber, func() { err = p.Close() })
			if !errors.Is(err, syscall.EBADF) || !strings.Contains(err.Error(), "FD.Close(1073741824)") {
				t.Fatalf("Close of an fd that is not open: %v, want an error naming it that matches EBADF", err)
			}
			if err := p.Close(); err != net.ErrClosed {
				t.Fatalf("second Close: %v, want the closed error", err)
			}
		})
	}
}
