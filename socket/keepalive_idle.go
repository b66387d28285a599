//go:build aix || dragonfly || freebsd || linux || netbsd || solaris

package socket

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// setKeepAlivePeriod sets the idle time and the probe interval, in
// seconds (TCP_KEEPIDLE, TCP_KEEPINTVL).
func setKeepAlivePeriod(s int, d time.Duration) error {
	secs := secondsUp(d)
	if err := unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, secs); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, secs))
}
