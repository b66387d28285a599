//go:build unix

package waker

import (
	"encoding/binary"
	"syscall"

	"golang.org/x/sys/unix"
)

var errInterrupted error = unix.EINTR

// OpenPipe makes a Waker over a non-blocking, close-on-exec self-pipe:
// where there is neither an eventfd nor EVFILT_USER. pipe2 is missing on
// darwin and AIX, so close-on-exec is set after the fact, under
// syscall.ForkLock, which exists so that a concurrent fork+exec cannot
// inherit an fd in that window (package os makes its pipes the same way on
// those systems).
func (w *Waker) OpenPipe() error {
	var p [2]int
	syscall.ForkLock.RLock()
	err := unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return sysErr("pipe", err)
	}
	for _, fd := range p {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return sysErr("fcntl", err)
		}
	}
	w.r, w.w = p[0], p[1]
	return nil
}

// write adds one wakeup. A full pipe or a saturated eventfd counter
// (EAGAIN) is readable already, which is all a wakeup needs.
func (w *Waker) write() error {
	var one [8]byte
	b := one[:1]
	if w.eventfd {
		// eventfd(2) takes an 8-byte integer in host byte order.
		binary.NativeEndian.PutUint64(one[:], 1)
		b = one[:]
	}
	for {
		_, err := unix.Write(w.w, b)
		switch err {
		case nil, unix.EAGAIN:
			return nil
		case unix.EINTR:
			continue
		}
		return sysErr("write", err)
	}
}

func readFd(fd int, b []byte) (int, error) { return unix.Read(fd, b) }

// closeFd closes fd. EINTR is not retried: Linux releases the number even
// when close(2) reports it, and a retry could close a stranger.
func closeFd(fd int) error {
	if err := unix.Close(fd); err != nil && err != unix.EINTR {
		return sysErr("close", err)
	}
	return nil
}
