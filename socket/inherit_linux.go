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
	return unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) == nil && keepAliveOn(s, keepAlive) == nil
}
