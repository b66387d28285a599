//go:build windows

package core_test

import (
	"testing"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// watchableFD returns an open fd that the loop can watch: on Windows a
// socket (the loop watches nothing else there), closed when the test ends.
func watchableFD(t *testing.T) int {
	t.Helper()
	a, b, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(a); windows.Closesocket(b) })
	return int(a)
}
