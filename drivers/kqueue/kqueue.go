//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

const (
	// maxEvents bounds one kevent call: libkqueue silently caps the event
	// list at 512 (KQUEUE.md, bug 10), and real kernels gain nothing from
	// more, as Wait is called again at once.
	maxEvents = 512

	// maxTimeout caps one sleep: Darwin returns EINVAL for a too long
	// timeout (the Go runtime's netpoll_kqueue.go caps at 1e6 s for the same
	// reason). Returning early is allowed by the contract.
	maxTimeout = 1e6 * time.Second

	// wakeIdent is the ident of the EVFILT_USER event; user events have
	// their own ident space, apart from fds.
	wakeIdent = 0

	// closedBit, set in Driver.users by Close, turns Wakeup away.
	closedBit = 1 << 62
)

// Driver is the kqueue driver. Its zero value is not usable: call New.
type Driver struct {
	kq   *kqueue
	regs map[int]*reg // by the caller's fd
	dups map[int]*reg // by the dup that carries a filter (libkqueue only)
	free []*reg       // released registrations, reused without allocating

	always   []*reg         // registrations of regular files and directories (always.go)
	pending  []driver.Token // Closed events found outside Wait, reported by the next Wait
	seq      uint64         // counts collects, to merge READ and WRITE of one fd into one Event
	sweep    fdcheck.Sweep
	sweepDue bool // the last sweep ran out of room in events
	closed   bool

	wakeR, wakeW int      // the self-pipe, or -1 when EVFILT_USER wakes
	wakeByte     [1]byte  // what Wakeup writes; only read, so shared by every caller
	drainBuf     [64]byte // Wait's buffer for draining the pipe, here so as not to allocate
	wakePending  atomic.Bool
	users        atomic.Int64 // Wakeup calls in flight, plus closedBit once closed
}

// reg is one registered fd. Only the loop goroutine touches it.
type reg struct {
	fd    int
	tok   driver.Token
	added driver.Interest // filters present in the kqueue
	onDup driver.Interest // the filter carried by dup, 0 if none
	dup   int             // -1 if none
	id    fdcheck.Ident   // fd's file at Register, for closed-fd checks
	seq   uint64          // last collect that saw this registration
	slot  int             // its index in that collect's events, -1 if none

	always   bool            // a regular file or directory, kept out of the kqueue (always.go)
	alwaysIn driver.Interest // its interest
}

// New opens a kqueue. It wakes through EVFILT_USER where the platform has
// it, through a self-pipe on NetBSD and OpenBSD.
func New() (*Driver, error) { return newDriver(!hasUserFilter) }

func newDriver(pipeWaker bool) (*Driver, error) {
	kq, err := openKqueue(maxEvents)
	if err != nil {
		return nil, os.NewSyscallError("kqueue", err)
	}
	d := &Driver{
		kq:    kq,
		regs:  make(map[int]*reg),
		dups:  make(map[int]*reg),
		wakeR: -1,
		wakeW: -1,
	}
	if pipeWaker {
		err = d.openPipe()
	} else {
		// EV_CLEAR resets the event once reported: one trigger, one wakeup,
		// whatever number of triggers came before (kevent(2), EVFILT_USER).
		err = kq.change(wakeIdent, filtUser, evAdd|evClear, 0)
		if err != nil {
			err = os.NewSyscallError("kevent", err)
		}
	}
	if err != nil {
		kq.close()
		return nil, err
	}
	return d, nil
}

// Name returns "kqueue".
func (d *Driver) Name() string { return "kqueue" }

// Fd returns the kqueue descriptor, or -1 after Close, for embedding in
// another loop on a BSD kernel. Over libkqueue it is not a pollable kernel
// fd but a pipe end that libkqueue reclaims from its own thread after
// close (KQUEUE.md, bug 7): never hand it to os.File or poll it.
func (d *Driver) Fd() int {
	if d.closed {
		return -1
	}
	return d.kq.fd
}

// Resolution is the granularity of Wait's timeout: 1 ms over libkqueue,
// which truncates to whole milliseconds, 1 ns on a kernel.
func (d *Driver) Resolution() time.Duration { return resolution }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check(fd); err != nil {
		return err
	}
	if r := d.regs[fd]; r != nil {
		if !d.stale(r) {
			return os.NewSyscallError("kevent", unix.EEXIST)
		}
		// The fd was closed behind our back and its number reused: the old
		// registration ends with a Closed event, the new one goes ahead.
		d.pending = append(d.pending, r.tok)
		d.reap(r)
	}
	id, always, err := fdcheck.IdentifyFile(fd)
	if err != nil {
		return os.NewSyscallError("fstat", err)
	}
	d.sweep.Activity()
	r := d.alloc()
	*r = reg{fd: fd, tok: tok, dup: -1, id: id, slot: -1}
	if always {
		d.addAlways(r, in)
		d.regs[fd] = r
		return nil
	}
	if err := d.apply(r, in); err != nil {
		d.drop(r)
		d.release(r)
		return err
	}
	d.regs[fd] = r
	return nil
}

// Modify implements driver.Driver.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	r, err := d.registered(fd)
	if err != nil {
		return err
	}
	d.sweep.Activity()
	r.tok = tok
	if r.always {
		r.setAlways(in)
		return nil
	}
	return d.apply(r, in)
}

// Deregister implements driver.Driver. A fd that was already closed is
// forgotten without error: its filters are gone, which is what was asked.
func (d *Driver) Deregister(fd int) error {
	r, err := d.registered(fd)
	if err != nil {
		return err
	}
	d.sweep.Activity()
	err = d.drop(r)
	delete(d.regs, fd)
	d.release(r)
	if errors.Is(err, unix.EBADF) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// check refuses what every registration method refuses, with the errors
// kevent(2) would give: a negative fd is EBADF.
func (d *Driver) check(fd int) error {
	if d.closed {
		return driver.ErrClosed
	}
	if fd < 0 {
		return os.NewSyscallError("kevent", unix.EBADF)
	}
	return nil
}

// registered finds the registration of fd for Modify and Deregister; an
// unknown fd is ENOENT, as kevent(2) answers for a filter that is not there.
func (d *Driver) registered(fd int) (*reg, error) {
	if err := d.check(fd); err != nil {
		return nil, err
	}
	r := d.regs[fd]
	if r == nil {
		return nil, os.NewSyscallError("kevent", unix.ENOENT)
	}
	return r, nil
}

// apply makes the filters in the kqueue match in. Deletions come first so
// that, over libkqueue, an added filter finds the fd free and needs no dup.
// Filters are added and deleted rather than enabled and disabled: EV_ADD on
// an existing registration fails over libkqueue (KQUEUE.md, bug 2), and
// this keeps what the kqueue holds equal to what the caller asked for.
func (d *Driver) apply(r *reg, in driver.Interest) error {
	in &= driver.Read | driver.Write
	for _, bit := range [...]driver.Interest{driver.Read, driver.Write} {
		if r.added&bit != 0 && in&bit == 0 {
			if err := d.delFilter(r, bit); err != nil {
				return err
			}
		}
	}
	for _, bit := range [...]driver.Interest{driver.Read, driver.Write} {
		if r.added&bit == 0 && in&bit != 0 {
			if err := d.addFilter(r, bit); err != nil {
				return err
			}
		}
	}
	return nil
}

// addFilter adds one filter. Over libkqueue a second filter on one fd fails
// with EFAULT (KQUEUE.md, bug 1): it goes on a dup of the fd, and events on
// the dup are mapped back through d.dups.
func (d *Driver) addFilter(r *reg, bit driver.Interest) error {
	ident := r.fd
	if writeNeedsDup && r.added&^r.onDup != 0 {
		if r.dup < 0 {
			dup, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				return os.NewSyscallError("fcntl", err)
			}
			r.dup = dup
			d.dups[dup] = r
		}
		ident = r.dup
	}
	if err := d.kq.change(ident, filterOf(bit), evAdd, 0); err != nil {
		if ident == r.dup && r.onDup == 0 {
			d.closeDup(r)
		}
		return os.NewSyscallError("kevent", err)
	}
	r.added |= bit
	if ident == r.dup {
		r.onDup = bit
	}
	return nil
}

// delFilter deletes one filter, and the dup that carried it. The filter is
// forgotten even if EV_DELETE fails: after close(2) it is gone on a kernel,
// and over libkqueue EV_DELETE drops the knote though it returns EBADF.
func (d *Driver) delFilter(r *reg, bit driver.Interest) error {
	ident := r.fd
	if r.onDup == bit {
		ident = r.dup
	}
	err := d.kq.change(ident, filterOf(bit), evDelete, 0)
	r.added &^= bit
	if r.onDup == bit {
		r.onDup = 0
		d.closeDup(r)
	}
	if err != nil {
		return os.NewSyscallError("kevent", err)
	}
	return nil
}

// drop deletes every filter of r and returns the first error. The dup goes
// first: over libkqueue, while a dup keeps the file open, epoll keeps the
// closed fd's entry, and deleting its knote first would leave epoll pointing
// at freed memory.
func (d *Driver) drop(r *reg) error {
	var first error
	for _, bit := range [...]driver.Interest{r.onDup, driver.Read, driver.Write} {
		if bit != 0 && r.added&bit != 0 {
			if err := d.delFilter(r, bit); err != nil && first == nil {
				first = err
			}
		}
	}
	d.closeDup(r)
	return first
}

func (d *Driver) closeDup(r *reg) {
	if r.dup >= 0 {
		delete(d.dups, r.dup)
		unix.Close(r.dup)
		r.dup = -1
	}
}

func (d *Driver) alloc() *reg {
	if n := len(d.free); n > 0 {
		r := d.free[n-1]
		d.free = d.free[:n-1]
		return r
	}
	return new(reg)
}

func (d *Driver) release(r *reg) {
	if r.always {
		d.dropAlways(r)
	}
	d.free = append(d.free, r)
}

func filterOf(bit driver.Interest) int {
	if bit == driver.Write {
		return filtWrite
	}
	return filtRead
}

// Close implements driver.Driver. It waits for Wakeup calls in flight, so
// that none of them writes to a descriptor number already reused.
func (d *Driver) Close() error {
	if d.closed {
		return nil // a second Close is a no-op
	}
	d.closed = true
	d.users.Or(closedBit)
	for d.users.Load() != closedBit {
		runtime.Gosched()
	}
	for fd, r := range d.regs {
		d.drop(r)
		delete(d.regs, fd)
	}
	d.free = nil
	d.always = nil
	d.pending = nil
	d.closePipe()
	if err := d.kq.close(); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)
