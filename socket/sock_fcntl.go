//go:build aix || darwin || solaris

package socket

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysSocket makes a socket and then marks it non-blocking and close-on-exec
// (these systems take no flags in socket(2), or, Solaris, only since
// 11.4). ForkLock keeps a concurrent fork+exec from inheriting it
// meanwhile, as net does.
func sysSocket(family, sotype, proto int) (int, error) {
	syscall.ForkLock.RLock()
	s, err := unix.Socket(family, sotype, proto)
	if err == nil {
		unix.CloseOnExec(s)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(s, true); err != nil {
		unix.Close(s)
		return -1, err
	}
	return s, nil
}
