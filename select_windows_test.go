//go:build windows

package eventloop

import (
	"slices"
	"testing"
)

// Windows offers afd first (the default) and stream after it.
func TestWindowsOffersAFDFirst(t *testing.T) {
	if got, want := Drivers(), []string{"afd", "stream"}; !slices.Equal(got, want) {
		t.Fatalf("Drivers() = %v, want %v", got, want)
	}
}
