//go:build openbsd

package socket

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// setKeepAlivePeriod: OpenBSD has no per-socket keep-alive timing (only
// the net.inet.tcp.keepidle sysctl), so it fails as net's does.
func setKeepAlivePeriod(s int, d time.Duration) error {
	return os.NewSyscallError("setsockopt", unix.ENOPROTOOPT)
}
