//go:build aix || darwin || netbsd || openbsd || solaris

package socket

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysAccept accepts and then marks the connection non-blocking and
// close-on-exec (golang.org/x/sys/unix has no accept4 for these systems),
// under ForkLock as net does on darwin.
func sysAccept(s int) (int, unix.Sockaddr, error) {
	syscall.ForkLock.RLock()
	ns, sa, err := unix.Accept(s)
	if err == nil {
		unix.CloseOnExec(ns)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, nil, err
	}
	if err := unix.SetNonblock(ns, true); err != nil {
		unix.Close(ns)
		return -1, nil, err
	}
	return ns, sa, nil
}
