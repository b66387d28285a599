package core

import (
	"fmt"
	"io/fs"
	"math"
)

// CloseFD closes fd, which the caller owns, the way the Go runtime's
// poll.FD.Close does: first the loop lets go of it (every active watcher of
// fd, and every one enabled but not yet active, is cancelled, and the
// driver forgets the number), then it is closed. Code that owns its fds
// (package socket's conns) closes them this way and never depends on the
// sweep.
//
// Closing a watched fd by other means is a bug that the loop reports: its
// watchers are disabled and an FDError naming the fd and their ids wrapping
// ErrFDClosed reaches the error handler (or comes out of Run), at once where
// the driver's kernel says so (POLLNVAL, EBADF), else at the next sweep: 10
// ms after activity, backing off to a second while idle. The sweep costs
// one fstat per watched fd; until it runs, an old watcher may see the
// readiness of a new file that took the number.
//
// Watchers of fd that are disabled are left alone: enabling one later
// reports it, as its file is gone. CloseFD of an fd that is not open
// returns the operating system's error naming fd; fd < 0 is an error. After
// Close, CloseFD just closes fd (the driver is gone, and with it every
// watcher).
func (l *Loop) CloseFD(fd int) error {
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("eventloop: CloseFD(%d): %w", fd, fs.ErrInvalid)
	}
	if !l.closed {
		l.releaseFD(fd)
	}
	if err := closeFile(fd); err != nil {
		return fmt.Errorf("eventloop: CloseFD(%d): %w", fd, err)
	}
	return nil
}

// releaseFD cancels the watchers of fd that are active or about to be, and
// deregisters it, in one driver call whatever the number of watchers.
func (l *Loop) releaseFD(fd int) {
	if fd < len(l.fds) {
		if p := l.fds[fd].pd; p != nil {
			p.fail(fmt.Errorf("eventloop: fd %d: %w", fd, ErrFDClosed))
		}
		for _, c := range l.forgetFD(fd, &l.fds[fd], true) {
			c.active = false
			l.cancel(c)
		}
	}
	for _, q := range l.enableQueue {
		c := l.lookup(q.id)
		if c != nil && c.enq == q.enq && (c.typ == TypeReadable || c.typ == TypeWritable) && int(c.fd) == fd {
			l.cancel(c)
		}
	}
}
