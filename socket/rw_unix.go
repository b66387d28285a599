//go:build unix && !linux

package socket

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysRead is read(2) with its errno as a value, which compares without
// the interface comparison an error would need. Outside Linux it goes
// through x/sys: darwin and OpenBSD take system calls through libc only.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	n, err := unix.Read(fd, p)
	if err != nil {
		return 0, err.(unix.Errno)
	}
	return n, 0
}

// sysWrite is write(2) likewise.
func sysWrite(fd int, p []byte) (int, syscall.Errno) {
	n, err := unix.Write(fd, p)
	if err != nil {
		return n, err.(unix.Errno)
	}
	return n, 0
}
