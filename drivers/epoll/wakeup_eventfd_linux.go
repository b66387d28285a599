//go:build linux

package epoll

import (
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// eventfdWaker wakes a blocked epoll_wait by making an eventfd readable.
type eventfdWaker struct {
	fd int
	// pending is 1 from the Wakeup that wrote the eventfd until the Wait
	// that drained it; later Wakeups see it and skip the write. It is reset
	// only after the drain, as the runtime's netpollWakeSig: a Wakeup racing
	// the reset either finds 0 and writes, or finds 1 while the Wait that
	// is about to return is still the current one.
	pending atomic.Uint32
	// mu is held for reading around the write and for writing by close, so
	// that no Wakeup writes to a number that close released (and that the
	// process may already have reused).
	mu     sync.RWMutex
	closed atomic.Bool
	one    [8]byte // the eventfd counter increment, little- or big-endian
	sink   [8]byte // drain buffer, used only by the loop's goroutine
}

func (w *eventfdWaker) open() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	w.fd = fd
	binary.NativeEndian.PutUint64(w.one[:], 1)
	return nil
}

func (w *eventfdWaker) wakeup() error {
	if w.closed.Load() {
		return errClosed("wakeup")
	}
	if !w.pending.CompareAndSwap(0, 1) {
		return nil
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed.Load() {
		return errClosed("wakeup")
	}
	for {
		_, err := unix.Write(w.fd, w.one[:])
		switch err {
		case unix.EINTR:
			continue
		case nil, unix.EAGAIN:
			// EAGAIN: the counter is at its maximum, so the eventfd is
			// readable already.
			return nil
		}
		return os.NewSyscallError("write", err)
	}
}

// drain empties the eventfd, then lets the next Wakeup write again.
func (w *eventfdWaker) drain() {
	for {
		if _, err := unix.Read(w.fd, w.sink[:]); err != unix.EINTR {
			break
		}
	}
	w.pending.Store(0)
}

func (w *eventfdWaker) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed.Store(true)
	return closeFd(w.fd)
}

func closeFd(fd int) error {
	// close(2): retrying after EINTR is wrong on Linux, where the number is
	// released even when close reports EINTR.
	if err := unix.Close(fd); err != nil && err != unix.EINTR {
		return os.NewSyscallError("close", err)
	}
	return nil
}
