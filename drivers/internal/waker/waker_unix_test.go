//go:build unix

package waker

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// kinds are the Wakers Open and OpenPipe make here; on Linux Open makes an
// eventfd, whose read returns its 8-byte counter.
func kinds(t *testing.T) map[string]func(*Waker) error {
	open := "Open"
	if runtime.GOOS == "linux" {
		open = "Open eventfd"
	}
	return map[string]func(*Waker) error{open: (*Waker).Open, "OpenPipe": (*Waker).OpenPipe}
}

func readable(t *testing.T, fd int) bool {
	t.Helper()
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	if err != nil && err != unix.EINTR {
		t.Fatal(err)
	}
	return n == 1
}

// readOnce reads what fd holds, in one read, and returns how many bytes.
func readOnce(t *testing.T, fd int) int {
	var buf [16]byte
	n, _ := unix.Read(fd, buf[:])
	return n
}

// unwritable returns an fd that a wakeup's write fails on, and the error.
func unwritable(t *testing.T) (int, error) {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd, unix.EBADF
}
