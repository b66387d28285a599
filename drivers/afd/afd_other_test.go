//go:build !windows

package afd_test

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/drivers/afd"
)

// Every package builds on every GOOS; where the mechanism is missing, New
// says so with errors.ErrUnsupported (STYLE.md, rule 3).
func TestNewUnsupported(t *testing.T) {
	d, err := afd.New()
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("New() = %v, %v; want an error matching errors.ErrUnsupported", d, err)
	}
}
