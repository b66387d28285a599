//go:build !unix || aix

package netpoll_test

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/drivers/netpoll"
)

// Every package builds on every GOOS; where the mechanism is missing, New
// says so with errors.ErrUnsupported (STYLE.md, rule 3).
func TestNewUnsupported(t *testing.T) {
	d, err := netpoll.New()
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("New() = %v, %v; want an error matching errors.ErrUnsupported", d, err)
	}
}
