//go:build unix || windows

package stream

import (
	"fmt"
	"io/fs"
	"math"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/waker"
)

// Available says whether this build has the driver: on every Unix, with
// poll(2), and on Windows, with WSAPoll. Package eventloop offers the
// drivers whose Available is true.
const Available = true

// Driver is a driver.Driver over poll(2). The zero value is not usable; call New.
type Driver struct {
	// pfds is the array handed to poll. pfds[0] is the waker's fd; pfds[i]
	// and regs[i] describe the same registration for i >= 1.
	pfds  []pollFd
	regs  []registration
	index map[int]int // fd -> i, so that Modify and Deregister need no scan
	next  int         // where the next Wait starts looking, for fairness

	wake   waker.Waker
	closed atomic.Bool // read by Wakeup on other goroutines
}

type registration struct {
	fd   int
	tok  driver.Token
	in   driver.Interest
	dead bool // reported Closed in this Wait; dropped before Wait returns
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New opens the waker; it is the only kernel object the driver owns.
func New() (*Driver, error) {
	d := &Driver{index: make(map[int]int), next: 1}
	if err := d.wake.Open(); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	d.pfds = make([]pollFd, 1)
	setInterest(&d.pfds[0], d.wake.Fd(), driver.Read)
	d.regs = []registration{{fd: d.wake.Fd()}}
	return d, nil
}

// Name returns "stream".
func (d *Driver) Name() string { return "stream" }

// Resolution is a millisecond: poll(2) takes its timeout in milliseconds.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if _, ok := d.index[fd]; ok {
		return fmt.Errorf("stream: register fd %d: %w", fd, fs.ErrExist)
	}
	if err := probe(fd); err != nil {
		return fmt.Errorf("stream: register fd %d: %w", fd, err)
	}
	var p pollFd
	setInterest(&p, fd, in)
	d.index[fd] = len(d.pfds)
	d.pfds = append(d.pfds, p)
	d.regs = append(d.regs, registration{fd: fd, tok: tok, in: in & (driver.Read | driver.Write)})
	return nil
}

// Modify implements driver.Driver.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	i, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("stream: modify fd %d: %w", fd, fs.ErrNotExist)
	}
	setInterest(&d.pfds[i], fd, in)
	d.regs[i].tok = tok
	d.regs[i].in = in & (driver.Read | driver.Write)
	return nil
}

// Deregister implements driver.Driver. It makes no system call, so it
// succeeds for an fd that was closed, or closed and its number reused,
// while registered.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	i, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("stream: deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	d.remove(i)
	return nil
}

// Wakeup implements driver.Driver; it is safe from any goroutine.
func (d *Driver) Wakeup() error { return d.wake.Wakeup() }

// Close closes the waker. The registered fds belong to the caller and stay
// open.
func (d *Driver) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil // a second Close is a no-op
	}
	d.pfds, d.regs, d.index = nil, nil, nil
	return d.wake.Close()
}

func (d *Driver) check(op string, fd int) error {
	if d.closed.Load() {
		return driver.ErrClosed
	}
	// PollFd.Fd is an int32 on every platform.
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("stream: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}

// remove forgets the registration in slot i by moving the last one into it.
func (d *Driver) remove(i int) {
	delete(d.index, d.regs[i].fd)
	last := len(d.pfds) - 1
	if i != last {
		d.pfds[i] = d.pfds[last]
		d.regs[i] = d.regs[last]
		d.index[d.regs[i].fd] = i
	}
	d.pfds[last] = pollFd{}
	d.regs[last] = registration{}
	d.pfds = d.pfds[:last]
	d.regs = d.regs[:last]
}

// setInterest fills p for fd and in. An fd with no interest is given to poll
// as ignored (a negative fd) rather than with events 0, because poll reports
// POLLHUP and POLLERR even for events 0 and Wait would return at once for an
// fd nobody watches; POSIX poll: "If the value of fd is less than 0, events
// shall be ignored, and revents shall be set to 0 in that entry on return
// from poll()", and WSAPoll's documentation says the same of a negative fd.
func setInterest(p *pollFd, fd int, in driver.Interest) {
	ignore(p)
	if in&(driver.Read|driver.Write) == 0 {
		return
	}
	setFd(p, fd)
	if in&driver.Read != 0 {
		p.Events |= pollIn
	}
	if in&driver.Write != 0 {
		p.Events |= pollOut
	}
}
