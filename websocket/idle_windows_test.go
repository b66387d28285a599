//go:build windows

package websocket

import "testing"

// Windows has no limit of open files to raise for the idle test's conns.
func raiseFDs(t *testing.T, n uint64) {}
