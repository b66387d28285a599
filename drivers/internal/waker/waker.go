// Package waker is the wakeup of every driver that sleeps in a system call:
// an eventfd on Linux, a self-pipe elsewhere, or a trigger the driver
// supplies (kqueue's EVFILT_USER). One coalescing scheme, one close, one
// error scheme for all of them.
//
// Coalescing is the Go runtime's netpollWakeSig: the Wakeup that finds the
// pending flag clear sets it and writes; later Wakeups see it set and return
// at once; the driver clears it (Drain) only after it has consumed the
// wakeup, so a Wakeup racing the clear either finds it clear and writes, or
// finds it set while the Wait that is about to return is still the current
// one. A write that fails clears the flag again, so that the next Wakeup
// tries instead of coalescing into nothing.
//
// Close may race Wakeup: the write happens under a read lock that Close
// takes for writing, so no Wakeup writes to a number that Close released
// (and that the process may already have reused). After Close, Wakeup
// returns an error matching driver.ErrClosed.
package waker

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/revoltgo/eventloop/driver"
)

// Waker wakes a driver blocked in the kernel. The zero value is not usable:
// call Open, OpenPipe or OpenTrigger.
type Waker struct {
	pending atomic.Bool
	closed  atomic.Bool
	mu      sync.RWMutex

	r, w    int          // read and write ends; equal for an eventfd; -1 for a trigger
	trigger func() error // set for OpenTrigger
	eventfd bool
	buf     [64]byte // Drain's buffer, used only by the loop's goroutine
}

// OpenTrigger makes a Waker whose wakeup is trigger (for kqueue, a kevent
// with NOTE_TRIGGER on an EVFILT_USER filter that the driver added). The
// driver consumes the event itself and then calls Drain.
func (w *Waker) OpenTrigger(trigger func() error) {
	w.r, w.w, w.trigger = -1, -1, trigger
}

// Fd is the descriptor to watch for reading: readable once woken. It is -1
// for a trigger.
func (w *Waker) Fd() int { return w.r }

// Wakeup makes the driver's current or next wait return. It never blocks.
func (w *Waker) Wakeup() error {
	if w.closed.Load() {
		return errClosed
	}
	if w.pending.Load() || !w.pending.CompareAndSwap(false, true) {
		return nil
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed.Load() {
		return errClosed
	}
	var err error
	if w.trigger != nil {
		err = w.trigger()
	} else {
		err = w.write()
	}
	if err != nil {
		w.pending.Store(false)
	}
	return err
}

// Drain consumes the wakeup (for an fd, it empties it), then lets the next
// Wakeup write again. The driver calls it when Fd was reported readable, or
// when it consumed its trigger's event.
func (w *Waker) Drain() {
	if w.trigger == nil {
		for {
			n, err := readFd(w.r, w.buf[:])
			if err == errInterrupted {
				continue
			}
			if err != nil || w.eventfd || n < len(w.buf) {
				break
			}
		}
	}
	w.pending.Store(false)
}

// Close releases the descriptors; a second Close returns nil.
func (w *Waker) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed.Swap(true) || w.trigger != nil {
		return nil
	}
	err := closeFd(w.r)
	if w.w != w.r {
		err = errors.Join(err, closeFd(w.w))
	}
	w.r, w.w = -1, -1
	return err
}

var errClosed = fmt.Errorf("wakeup: %w", driver.ErrClosed)

func sysErr(call string, err error) error { return os.NewSyscallError(call, err) }
