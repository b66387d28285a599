//go:build unix && !aix

package netpoll

import "golang.org/x/sys/unix"

// dupCloexec duplicates fd with close-on-exec set atomically, so that a
// concurrent fork and exec cannot inherit the dup.
func dupCloexec(fd int) (int, error) {
	for {
		nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != unix.EINTR {
			return nfd, err
		}
	}
}
