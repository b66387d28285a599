//go:build unix && !aix

package netpoll

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Available says whether this build has the driver: on every Unix but AIX,
// whose poll(2) types differ from the other systems'. Package eventloop
// offers the drivers whose Available is true.
const Available = true

// Driver is a driver.Driver over the Go runtime's netpoller. The zero value
// is not usable; call New.
type Driver struct {
	watches map[int]*watch // by the user's fd
	list    []*watch       // the same, in the order scans report them; forgotten ones until the next scan
	pfds    []unix.PollFd  // the scan's poll(2) array, kept so that Wait does not allocate
	rot     int            // where the next scan starts reporting, for fairness

	// signal carries Wakeups and helpers' reports to Wait; its buffer of one
	// coalesces them. Never closed, so that a Wakeup racing Close cannot panic.
	signal chan struct{}
	timer  *time.Timer // reused by every blocking Wait
	closed atomic.Bool
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New returns a driver; it starts no goroutine until an fd is watched.
func New() (*Driver, error) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Driver{watches: make(map[int]*watch), signal: make(chan struct{}, 1), timer: t}, nil
}

// Name returns "netpoll".
func (d *Driver) Name() string { return "netpoll" }

// Resolution is a millisecond: the runtime's netpoller sleeps in whole
// milliseconds, so Go timers are no finer than that on an idle process.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if _, err := d.lookup("register", fd); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			err = fmt.Errorf("netpoll: register fd %d: %w", fd, fs.ErrExist)
		}
		return err
	}
	w, err := open(fd)
	if err != nil {
		return fmt.Errorf("netpoll: register fd %d: %w", fd, err)
	}
	w.tok, w.in = tok, in&(driver.Read|driver.Write)
	d.watches[fd] = w
	d.list = append(d.list, w)
	return nil
}

// Modify implements driver.Driver. It makes no system call and stops no
// helper: one for a dropped direction is just not re-armed.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	w, err := d.lookup("modify", fd)
	if err == nil {
		w.tok, w.in = tok, in&(driver.Read|driver.Write)
	}
	return err
}

// Deregister implements driver.Driver: the helpers of fd have exited and its
// dup is closed when it returns. It never touches the user's fd, so it
// succeeds for one closed, or closed and its number reused, while watched.
func (d *Driver) Deregister(fd int) error {
	w, err := d.lookup("deregister", fd)
	if err == nil {
		d.forget(w)
	}
	return err
}

// Wakeup implements driver.Driver.
func (d *Driver) Wakeup() error {
	if d.closed.Load() {
		return errClosed("wakeup")
	}
	notify(d.signal)
	return nil
}

// Close implements driver.Driver: every helper has exited and every dup is
// closed when it returns.
func (d *Driver) Close() error {
	if d.closed.Swap(true) {
		return nil // a second Close is a no-op
	}
	for _, w := range d.watches {
		w.release()
	}
	d.watches, d.list = nil, nil
	d.timer.Stop()
	return nil
}

// lookup returns the watch of fd, or why not: the driver is closed, fd is
// not an int32 (as PollFd.Fd is), or fd is not watched (fs.ErrNotExist).
func (d *Driver) lookup(op string, fd int) (*watch, error) {
	if d.closed.Load() {
		return nil, errClosed(op)
	}
	if fd < 0 || fd > math.MaxInt32 {
		return nil, fmt.Errorf("netpoll: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	w, ok := d.watches[fd]
	if !ok {
		return nil, fmt.Errorf("netpoll: %s fd %d: %w", op, fd, fs.ErrNotExist)
	}
	return w, nil
}

// forget drops w: its helpers exit and its dup is closed. The next scan
// takes it out of the list.
func (d *Driver) forget(w *watch) {
	delete(d.watches, w.fd)
	w.forgotten = true
	w.release()
}

// notify makes a blocked Wait return; it coalesces with a signal not yet
// taken.
func notify(signal chan struct{}) {
	select {
	case signal <- struct{}{}:
	default:
	}
}

func errClosed(op string) error { return fmt.Errorf("netpoll: %s: %w", op, driver.ErrClosed) }
