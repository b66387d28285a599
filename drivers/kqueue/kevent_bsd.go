//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package kqueue

import (
	"time"

	"golang.org/x/sys/unix"
)

// The seam on a real kernel: x/sys's Kevent_t, whose layout differs per OS
// and architecture (FreeBSD 12+ appends Ext, NetBSD widens Filter and Flags
// to uint32, 32-bit ports narrow Ident), so it is only touched through
// SetKevent and the integer conversions below.

const (
	filtRead  = unix.EVFILT_READ
	filtWrite = unix.EVFILT_WRITE

	evAdd    = unix.EV_ADD
	evDelete = unix.EV_DELETE
	evEnable = unix.EV_ENABLE
	evClear  = unix.EV_CLEAR
	evEOF    = unix.EV_EOF
	evError  = unix.EV_ERROR
)

// The kernel facts the driver logic branches on (see doc.go).
const (
	// kevent(2): "Calling close() on a file descriptor will remove any
	// kevents that reference the descriptor."
	closeRemovesKnotes = true

	// READ and WRITE on one fd are independent knotes.
	writeNeedsDup = false

	// The timeout is a timespec and the kernel never returns early.
	resolution = time.Nanosecond
)

type kqueue struct {
	fd  int
	buf []unix.Kevent_t
	ts  unix.Timespec
}

func openKqueue(size int) (*kqueue, error) {
	fd, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	return &kqueue{fd: fd, buf: make([]unix.Kevent_t, size)}, nil
}

// change applies one change with an empty event list, so that a failure comes
// back as (-1, errno) for exactly that change (kevent(2), RETURN VALUES).
func (k *kqueue) change(ident, filter, flags int, fflags uint32) error {
	var ch [1]unix.Kevent_t
	unix.SetKevent(&ch[0], ident, filter, flags)
	ch[0].Fflags = fflags
	_, err := unix.Kevent(k.fd, ch[:], nil, nil)
	return err
}

// wait collects up to n events; timeout < 0 blocks.
func (k *kqueue) wait(n int, timeout time.Duration) (int, error) {
	var ts *unix.Timespec
	if timeout >= 0 {
		k.ts = unix.NsecToTimespec(int64(timeout))
		ts = &k.ts
	}
	return unix.Kevent(k.fd, nil, k.buf[:n], ts)
}

func (k *kqueue) event(i int) (ident, filter, flags int) {
	e := &k.buf[i]
	return int(e.Ident), int(e.Filter), int(e.Flags)
}

func (k *kqueue) close() error { return unix.Close(k.fd) }
