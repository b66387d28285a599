//go:build aix

package netpoll

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// dupCloexec duplicates fd with close-on-exec set. AIX has no
// F_DUPFD_CLOEXEC, so the dup and the flag happen under syscall.ForkLock,
// which os/exec holds for writing while it forks.
func dupCloexec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := unix.Dup(fd)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(nfd)
	return nfd, nil
}
