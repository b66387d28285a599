//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package kqueue

import (
	"time"

	"golang.org/x/sys/unix"
)

// The kqueue of a kernel, through x/sys. Kevent_t differs per OS and
// architecture (FreeBSD 12+ appends Ext, NetBSD widens Filter and Flags,
// 32-bit ports narrow Ident): it is only touched through SetKevent and
// integer conversions.

const (
	filtRead      = unix.EVFILT_READ
	filtWrite     = unix.EVFILT_WRITE
	evAdd         = unix.EV_ADD
	evDelete      = unix.EV_DELETE
	evClear       = unix.EV_CLEAR
	evEOF         = unix.EV_EOF
	evError       = unix.EV_ERROR
	writeNeedsDup = false           // READ and WRITE on one fd are independent knotes
	resolution    = time.Nanosecond // a timespec, and a kernel never returns early
)

type kqueue struct {
	fd  int
	buf [maxEvents]unix.Kevent_t
	ts  unix.Timespec
}

func openKqueue() (*kqueue, error) {
	fd, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	return &kqueue{fd: fd}, nil
}

// change applies one change with an empty event list, so that a failure
// comes back as (-1, errno) for exactly that change (kevent(2), RETURN
// VALUES; KQUEUE.md, bug 9).
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

func (k *kqueue) event(i int) (ident, filter, flags int, fflags uint32) {
	e := &k.buf[i]
	return int(e.Ident), int(e.Filter), int(e.Flags), e.Fflags
}

func (k *kqueue) close() error { return unix.Close(k.fd) }
