//go:build aix

package socket

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dupCloexec duplicates s and marks the copy close-on-exec (AIX has no
// F_DUPFD_CLOEXEC), under ForkLock.
func dupCloexec(s int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	ns, err := unix.Dup(s)
	if err != nil {
		return -1, os.NewSyscallError("dup", err)
	}
	unix.CloseOnExec(ns)
	return ns, nil
}
