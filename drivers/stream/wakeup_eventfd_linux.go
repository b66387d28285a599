//go:build linux

package stream

import (
	"encoding/binary"
	"os"

	"golang.org/x/sys/unix"
)

func (w *wakeup) open() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	w.r, w.w = fd, fd
	return nil
}

// write adds 1 to the eventfd counter: eventfd(2) reads and writes an
// 8-byte integer in host byte order. Without EFD_SEMAPHORE a read returns the
// whole counter and resets it to zero, so one read drains any number of
// writes.
func (w *wakeup) write() error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, err := unix.Write(w.w, b[:])
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		return os.NewSyscallError("write", err)
	}
	return err
}
