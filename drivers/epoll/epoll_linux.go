//go:build linux

package epoll

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/waker"
	"golang.org/x/sys/unix"
)

// Available says whether this build has the driver: on Linux only, where
// epoll(7) is. Package eventloop offers the drivers whose Available is true.
const Available = true

// Driver is a driver.Driver over one epoll instance. The zero value is not
// usable; call New.
type Driver struct {
	epfd int
	wake waker.Waker
	regs regTable
	seq  uint32 // registrations so far, to number each one
	// always holds the registrations marked always; while there is one,
	// Wait does not block.
	always map[int]struct{}
	// pending holds the Closed events of registrations that Modify or a
	// rebuild found gone and forgot, for the next Wait to report.
	pending []driver.Event
	// evbuf takes the kernel's events; its size bounds how many one Wait
	// takes, as the core's own slice (256) does.
	evbuf  [256]unix.EpollEvent
	pwait2 bool
	// ts is epoll_pwait2's timeout, in the Driver rather than on the stack
	// because it is passed to the kernel as a uintptr.
	ts     unix.Timespec
	closed bool
	// park is the epoll instance handed to the Go runtime's netpoller (a
	// dup of epfd, through os.NewFile; nil if the runtime would not take
	// it): a long Wait parks the loop's goroutine on it (wait_linux.go).
	park     *os.File
	parkConn syscall.RawConn
	parkPoll func(uintptr) bool // pollPark, made once: no closure per Wait
	parkBuf  []unix.EpollEvent  // what pollPark fills, and how many
	parkN    int
	parkErr  error
	deadline bool            // park has a read deadline set
	parkEv   unix.EpollEvent // armPark's, passed to the kernel as a uintptr
}

const (
	// wakeData is the Fd of the waker's epoll_event; no registered fd is
	// negative.
	wakeData = -1
	// maxWait caps the kernel's timeout (about 11.5 days), as the Go
	// runtime caps its own, so that no conversion overflows; Wait then
	// returns (0, nil) early.
	maxWait = 1e9 * time.Millisecond
)

var (
	errClosed = fmt.Errorf("epoll: %w", driver.ErrClosed)

	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
	_ driver.Pollable       = (*Driver)(nil)
)

// New creates the epoll instance and its waker.
func New() (*Driver, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	d := &Driver{epfd: epfd, always: make(map[int]struct{})}
	if err := d.wake.Open(); err != nil {
		unix.Close(epfd)
		return nil, err
	}
	if err := addWaker(epfd, d.wake.Fd()); err != nil {
		d.Close()
		return nil, err
	}
	d.pwait2 = d.probePwait2()
	d.openPark()
	return d, nil
}

func addWaker(epfd, fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	return os.NewSyscallError("epoll_ctl", unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev))
}

// Name returns "epoll".
func (d *Driver) Name() string { return "epoll" }

// Fd returns the epoll instance's descriptor, readable whenever Wait would
// report something, to embed the loop in another one; -1 after Close. A
// rebuild (package doc) puts a new instance under the same number, which
// an outer epoll that watched the old one must register again.
func (d *Driver) Fd() int { return d.epfd }

// Resolution is a microsecond with epoll_pwait2(2) (Linux 5.11 and later,
// probed by New), which takes a timespec, and a millisecond without it.
func (d *Driver) Resolution() time.Duration {
	if d.pwait2 {
		return time.Microsecond
	}
	return time.Millisecond
}

// Wakeup implements driver.Driver.
func (d *Driver) Wakeup() error { return d.wake.Wakeup() }

// Close implements driver.Driver.
func (d *Driver) Close() error {
	if d.closed {
		return nil // a second Close is a no-op
	}
	d.closed = true
	d.closePark()
	err := errors.Join(d.wake.Close(), os.NewSyscallError("close", unix.Close(d.epfd)))
	d.epfd, d.regs, d.always, d.pending = -1, nil, nil, nil
	return err
}

func (d *Driver) check(op string, fd int) error {
	if d.closed {
		return errClosed
	}
	// epoll_event keeps the fd in an int32.
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("epoll: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}
