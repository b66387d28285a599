//go:build darwin

package socket

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// setKeepAlivePeriod sets the idle time (darwin calls it TCP_KEEPALIVE)
// and the probe interval, in seconds.
func setKeepAlivePeriod(s int, d time.Duration) error {
	secs := secondsUp(d)
	if err := unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_KEEPALIVE, secs); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, secs))
}
