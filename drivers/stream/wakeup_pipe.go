//go:build unix && !linux

package stream

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// open makes a self-pipe. pipe2 is missing on darwin and AIX, so the
// close-on-exec flag is set after the fact, under syscall.ForkLock, which
// exists so that a concurrent fork+exec cannot inherit an fd in that window
// (the os package creates its pipes the same way on those systems).
func (w *wakeup) open() error {
	var p [2]int
	syscall.ForkLock.RLock()
	err := unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return os.NewSyscallError("pipe", err)
	}
	for _, fd := range p {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return os.NewSyscallError("fcntl", err)
		}
	}
	w.r, w.w = p[0], p[1]
	return nil
}

func (w *wakeup) write() error {
	var b [1]byte
	_, err := unix.Write(w.w, b[:])
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		return os.NewSyscallError("write", err)
	}
	return err
}
