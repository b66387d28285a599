//go:build !windows

package core_test

import (
	"os"
	"testing"
)

// watchableFD returns an open fd that the loop can watch (its identity
// can be read), closed when the test ends.
func watchableFD(t *testing.T) int {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}
