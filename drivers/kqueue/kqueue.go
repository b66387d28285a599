//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"os"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/waker"
)

// Available says whether this build has the driver: on darwin, FreeBSD,
// NetBSD, OpenBSD and DragonFly, and on Linux when built with cgo and the
// tag eventloop_libkqueue (a userspace kqueue, for testing the driver).
// Package eventloop offers the drivers whose Available is true.
const Available = true

// maxEvents bounds one kevent call: libkqueue silently caps the event list
// at 512 (KQUEUE.md, bug 10), and Wait is called again at once anyway.
const maxEvents = 512

// Driver is the kqueue driver. Its zero value is not usable: call New.
type Driver struct {
	kq      *kqueue
	w       waker.Waker
	regs    map[int]*reg   // by the caller's fd
	dups    map[int]*reg   // by the dup that carries WRITE (libkqueue)
	always  int            // how many regs are always ready (always.go)
	pending []driver.Token // fds Modify found closed, for the next Wait
	seq     uint64         // counts collects, to merge READ and WRITE of an fd
	closed  bool
}

// New opens a kqueue, woken through EVFILT_USER, or through a self-pipe on
// NetBSD and OpenBSD, where x/sys has no EVFILT_USER.
func New() (*Driver, error) { return newDriver(!hasUserFilter) }

func newDriver(pipe bool) (*Driver, error) {
	kq, err := openKqueue()
	if err != nil {
		return nil, os.NewSyscallError("kqueue", err)
	}
	d := &Driver{kq: kq, regs: make(map[int]*reg), dups: make(map[int]*reg)}
	if pipe {
		if err = d.w.OpenPipe(); err == nil {
			if err = os.NewSyscallError("kevent", kq.change(d.w.Fd(), filtRead, evAdd, 0)); err != nil {
				d.w.Close()
			}
		}
	} else {
		// EV_CLEAR resets the event once reported: any number of triggers
		// make one wakeup (kevent(2), EVFILT_USER).
		err = os.NewSyscallError("kevent", kq.change(0, filtUser, evAdd|evClear, 0))
		d.w.OpenTrigger(func() error { return os.NewSyscallError("kevent", kq.change(0, filtUser, 0, noteTrigger)) })
	}
	if err != nil {
		kq.close()
		return nil, err
	}
	return d, nil
}

// Name returns "kqueue".
func (d *Driver) Name() string { return "kqueue" }

// Fd returns the kqueue descriptor, or -1 after Close. Over libkqueue it
// is a pipe end that libkqueue reclaims from its own thread (KQUEUE.md,
// bug 7): it must never reach os.File or a poller there.
func (d *Driver) Fd() int {
	if d.closed {
		return -1
	}
	return d.kq.fd
}

// Resolution is the granularity of Wait's timeout.
func (d *Driver) Resolution() time.Duration { return resolution }

// Wakeup implements driver.Driver.
func (d *Driver) Wakeup() error { return d.w.Wakeup() }

// Close implements driver.Driver. The pipe's filter goes before the pipe
// (KQUEUE.md, bug 3), the waker before the kqueue: the waker's Close waits
// for the Wakeups in flight.
func (d *Driver) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	for _, r := range d.regs {
		d.forget(r)
	}
	if fd := d.w.Fd(); fd >= 0 {
		d.kq.change(fd, filtRead, evDelete, 0)
	}
	err := d.w.Close()
	if kerr := d.kq.close(); kerr != nil && err == nil {
		err = os.NewSyscallError("close", kerr)
	}
	return err
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
	_ driver.Pollable       = (*Driver)(nil)
)
