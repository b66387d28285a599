package socket

import (
	"time"

	"golang.org/x/sys/unix"
)

// setInherited sets on listening TCP socket s what net sets on each conn
// it accepts: TCP_NODELAY, and keep-alives as keepAlive asks (as
// netFD.keepAlive takes it). Linux gives an accepted conn the options of
// its listening socket, so accept then sets none. It reports whether all
// were set; if not, accept sets them on each conn, as net does.
func setInherited(s int, keepAlive time.Duration) bool {
	if unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) != nil {
		return false
	}
	if keepAlive < 0 {
		return true // net leaves a conn's keep-alive as the system has it
	}
	if keepAlive == 0 {
		keepAlive = defaultKeepAlive
	}
	if unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1) != nil {
		return false
	}
	return setKeepAlivePeriod(s, keepAlive) == nil
}
