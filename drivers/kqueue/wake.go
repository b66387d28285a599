//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"os"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/wakepipe"
	"golang.org/x/sys/unix"
)

// Wakeup implements driver.Driver. Wakeups coalesce through wakePending, which
// Wait clears only after it consumed the wakeup event (the Go runtime's
// netpollWakeSig): a Wakeup that finds it set knows a Wait is yet to return.
func (d *Driver) Wakeup() error {
	if d.users.Add(1)&closedBit != 0 {
		d.users.Add(-1)
		return driver.ErrClosed
	}
	defer d.users.Add(-1)
	if d.wakePending.Load() || !d.wakePending.CompareAndSwap(false, true) {
		return nil
	}
	var err error
	if d.wakeR < 0 {
		if err = d.kq.change(wakeIdent, filtUser, 0, noteTrigger); err != nil {
			err = os.NewSyscallError("kevent", err)
		}
	} else {
		for {
			_, err = unix.Write(d.wakeW, d.wakeByte[:])
			if err != unix.EINTR {
				break
			}
		}
		// A full pipe already holds a wakeup.
		if err == unix.EAGAIN {
			err = nil
		}
		if err != nil {
			err = os.NewSyscallError("write", err)
		}
	}
	if err != nil {
		d.wakePending.Store(false)
	}
	return err
}

// openPipe sets up the self-pipe waker, its read end watched for READ.
func (d *Driver) openPipe() error {
	r, w, err := wakepipe.Open()
	if err != nil {
		return err
	}
	d.wakeR, d.wakeW = r, w
	if err = d.kq.change(d.wakeR, filtRead, evAdd, 0); err != nil {
		d.closePipe()
		return os.NewSyscallError("kevent", err)
	}
	return nil
}

// drainPipe empties the self-pipe, then lets the next Wakeup write again.
func (d *Driver) drainPipe() {
	for {
		n, err := unix.Read(d.wakeR, d.drainBuf[:])
		if err == unix.EINTR {
			continue
		}
		if n < len(d.drainBuf) {
			break
		}
	}
	d.wakePending.Store(false)
}

// closePipe deletes the pipe's filter before closing it (KQUEUE.md, bug 3).
func (d *Driver) closePipe() {
	if d.wakeR < 0 {
		return
	}
	d.kq.change(d.wakeR, filtRead, evDelete, 0)
	unix.Close(d.wakeR)
	unix.Close(d.wakeW)
}
