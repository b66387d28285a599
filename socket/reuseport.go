//go:build unix && !solaris

package socket

import (
	"os"

	"golang.org/x/sys/unix"
)

func setReusePort(s int) error {
	return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1))
}
