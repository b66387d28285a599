//go:build (unix && !linux) || windows

package socket

import "time"

// setInherited is inherit_linux.go's. Elsewhere accept sets net's options
// on each conn: which options a conn takes from its listening socket is
// each system's own, and the tests that would tell (accept_linux_test.go)
// run on Linux alone here (the BSDs and macOS are built, not run; Wine's
// sockets are the host's).
func setInherited(int, time.Duration) bool { return false }
