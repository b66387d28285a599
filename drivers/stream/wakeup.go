//go:build unix

package stream

import (
	"os"
	"sync"
	"sync/atomic"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// wakeup is the fd that Wakeup writes to and Wait polls: an eventfd on
// Linux (r == w), a non-blocking self-pipe elsewhere.
type wakeup struct {
	// pending coalesces wakeups as the Go runtime's netpollWakeSig does:
	// set by the Wakeup that writes, cleared by Wait only after it drained
	// the fd, so at most one write is outstanding and a thousand Wakeups
	// cost one write and one read.
	pending atomic.Bool

	// mu is held across the write and across close, so that a Wakeup that
	// races Close never writes to a closed fd, or to a new file that
	// reused its number.
	mu     sync.Mutex
	closed bool // under mu

	r, w int
	buf  [8]byte // Wait's read buffer; kept here so that Wait does not allocate
}

// signal makes the current or the next poll return. It never blocks on the
// fd: the fd is non-blocking, and mu is only held for one write or close.
func (w *wakeup) signal() error {
	if !w.pending.CompareAndSwap(false, true) {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return driver.ErrClosed
	}
	for {
		err := w.write()
		switch err {
		case nil, unix.EAGAIN:
			// EAGAIN: the fd is full, so a poll will see it readable anyway.
			return nil
		case unix.EINTR:
			continue
		}
		// Let the next Wakeup try again rather than coalesce into nothing.
		w.pending.Store(false)
		return err
	}
}

// drain empties the fd, then re-arms signal. The order matters: a Wakeup
// between the two is swallowed, but only by a Wait that is returning anyway.
func (w *wakeup) drain() {
	for {
		n, err := unix.Read(w.r, w.buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n < len(w.buf) || w.r == w.w {
			break
		}
	}
	w.pending.Store(false)
}

func (w *wakeup) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	err := closeFd(w.r)
	if w.w != w.r {
		if werr := closeFd(w.w); err == nil {
			err = werr
		}
	}
	w.r, w.w = -1, -1
	return err
}

func closeFd(fd int) error {
	if err := unix.Close(fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}
