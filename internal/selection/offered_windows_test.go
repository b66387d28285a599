//go:build windows

package selection

import (
	"slices"
	"testing"
)

// Windows offers afd first (the default) and stream after it.
func TestWindowsOffersAFDFirst(t *testing.T) {
	if got, want := Offered(), []string{"afd", "stream"}; !slices.Equal(got, want) {
		t.Fatalf("Offered() = %v, want %v", got, want)
	}
}
