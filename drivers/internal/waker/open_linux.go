//go:build linux

package waker

import "golang.org/x/sys/unix"

// Open makes the platform's best fd waker: on Linux an eventfd, one
// descriptor that a single read drains whatever the number of writes
// (eventfd(2), without EFD_SEMAPHORE).
func (w *Waker) Open() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return sysErr("eventfd", err)
	}
	w.r, w.w, w.eventfd = fd, fd, true
	return nil
}
