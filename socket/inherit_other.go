//go:build (unix && !linux) || windows

package socket

import "time"

// setInherited is inherit_linux.go's. Elsewhere accept sets net's options
// on each conn: what a conn inherits from its listening socket differs
// between systems (keep-alive times on the BSDs, AcceptEx's sockets on
// Windows).
func setInherited(int, time.Duration) bool { return false }
