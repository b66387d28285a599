//go:build unix

package stream

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The poll(2) side of the seam that stream.go and wait.go are written
// against; poll_windows.go is WSAPoll's.
type pollFd = unix.PollFd

const (
	pollIn   = unix.POLLIN
	pollOut  = unix.POLLOUT
	pollHup  = unix.POLLHUP
	pollErr  = unix.POLLERR
	pollNval = unix.POLLNVAL
	pollCall = "poll"
)

var (
	errInterrupted error = unix.EINTR
	errBadFd       error = unix.EBADF
)

func poll(p []pollFd, ms int) (int, error) { return unix.Poll(p, ms) }

func setFd(p *pollFd, fd int) { p.Fd = int32(fd) }

func ignore(p *pollFd) { p.Fd, p.Events, p.Revents = -1, 0, 0 }

// revents widens Revents, which is int16 on most systems and uint16 on AIX
// (where POLLNVAL is 0x8000).
func revents(p *pollFd) uint32 { return uint32(uint16(p.Revents)) }

// probe asks poll about fd alone, without waiting, so that Register refuses
// what Wait could only report as Closed: an fd that is not open, and on
// macOS a device, which poll(2) there does not support (see BUGS in its
// manual page) and answers with POLLNVAL although the fd is open.
func probe(fd int) error {
	p := []unix.PollFd{{Fd: int32(fd)}}
	for {
		_, err := unix.Poll(p, 0)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return os.NewSyscallError("poll", err)
		}
	}
	if revents(&p[0])&unix.POLLNVAL == 0 {
		return nil
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	return fmt.Errorf("poll(2) cannot watch this file: %w", errors.ErrUnsupported)
}
