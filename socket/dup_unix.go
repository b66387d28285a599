//go:build unix && !aix

package socket

import (
	"os"

	"golang.org/x/sys/unix"
)

// dupCloexec duplicates s as close-on-exec in one call.
func dupCloexec(s int) (int, error) {
	for {
		ns, err := unix.FcntlInt(uintptr(s), unix.F_DUPFD_CLOEXEC, 0)
		if err != unix.EINTR {
			return ns, os.NewSyscallError("fcntl", err)
		}
	}
}
