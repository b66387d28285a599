//go:build unix

package wakepipe

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open returns the read and write ends of a non-blocking, close-on-exec
// pipe. pipe2 is missing on darwin and AIX, so the close-on-exec flag is set
// after the fact, under syscall.ForkLock, which exists so that a concurrent
// fork+exec cannot inherit an fd in that window (the os package creates its
// pipes the same way on those systems). Non-blocking, because a Wakeup must
// never block on a full pipe, and a drain must stop once it is empty.
func Open() (r, w int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	err = unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, -1, os.NewSyscallError("pipe", err)
	}
	for _, fd := range p {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return -1, -1, os.NewSyscallError("fcntl", err)
		}
	}
	return p[0], p[1], nil
}
