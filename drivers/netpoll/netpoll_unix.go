//go:build unix

package netpoll

import (
	"fmt"
	"io/fs"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// Driver is a driver.Driver over the Go runtime's netpoller. The zero value
// is not usable; call New.
type Driver struct {
	watches map[int]*watch // by the user's fd
	list    []*watch       // the same watches, in a slice for the scans (watch.idx)
	scratch []*watch       // a copy of list that a scan can forget watches from

	always  []*watch // watches the runtime poller refused: ready on every Wait
	rot     int      // where the next scan starts reporting, for fairness
	pfds    []unix.PollFd
	pending fdcheck.Pending // Closed events found by Register, or beyond the caller's slice

	mu    sync.Mutex // guards posts, which helpers append to
	posts []post
	spare []post // the other half of a double buffer, so Wait never allocates

	// signal carries a Wakeup or a helper's post to a blocked Wait. Its
	// buffer of one makes both coalesce, and it is never closed, so a
	// Wakeup racing Close cannot panic.
	signal chan struct{}
	timer  *time.Timer // reused by every blocking Wait
	sweep  fdcheck.Sweep
	gen    uint64 // helpers started so far; tells a stale post from a live one
	closed atomic.Bool
}

// post is a helper's report that its direction of w is ready.
type post struct {
	w      *watch
	dir    int
	gen    uint64
	failed bool // the runtime refused to wait: make w always ready
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New returns a driver; it starts no goroutine until an fd is watched.
func New() (*Driver, error) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Driver{
		watches: make(map[int]*watch),
		signal:  make(chan struct{}, 1),
		timer:   t,
	}, nil
}

// Name returns "netpoll".
func (d *Driver) Name() string { return "netpoll" }

// Resolution is a millisecond: the runtime's netpoller sleeps in whole
// milliseconds (a shorter timer costs a 1 ms sleep), so Go timers are no
// finer than that on an idle process.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if w, ok := d.watches[fd]; ok {
		if alive(w) {
			return fmt.Errorf("netpoll: register fd %d: %w", fd, fs.ErrExist)
		}
		// The number was closed and reused before a sweep noticed.
		d.forget(w, true)
	}
	w, err := open(fd)
	if err != nil {
		return fmt.Errorf("netpoll: register fd %d: %w", fd, err)
	}
	w.tok = tok
	d.watches[fd] = w
	w.idx = len(d.list)
	d.list = append(d.list, w)
	d.setInterest(w, in&(driver.Read|driver.Write))
	d.sweep.Activity()
	return nil
}

// Modify implements driver.Driver. It starts or stops helper goroutines; it
// makes no system call of its own.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	w, ok := d.watches[fd]
	if !ok {
		return fmt.Errorf("netpoll: modify fd %d: %w", fd, fs.ErrNotExist)
	}
	w.tok = tok
	d.setInterest(w, in&(driver.Read|driver.Write))
	d.sweep.Activity()
	return nil
}

// Deregister implements driver.Driver: the helpers of fd have exited and its
// dup is closed when it returns.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	w, ok := d.watches[fd]
	if !ok {
		return fmt.Errorf("netpoll: deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	d.forget(w, false)
	d.sweep.Activity()
	return nil
}

// Wakeup implements driver.Driver.
func (d *Driver) Wakeup() error {
	if d.closed.Load() {
		return errClosed("wakeup")
	}
	select {
	case d.signal <- struct{}{}:
	default:
	}
	return nil
}

// Close implements driver.Driver: every helper has exited and every dup is
// closed when it returns.
func (d *Driver) Close() error {
	if d.closed.Swap(true) {
		return nil // a second Close is a no-op
	}
	for _, w := range d.watches {
		release(w)
	}
	d.watches, d.list, d.scratch, d.always, d.pending = nil, nil, nil, nil, fdcheck.Pending{}
	d.timer.Stop()
	return nil
}

func (d *Driver) check(op string, fd int) error {
	if d.closed.Load() {
		return errClosed(op)
	}
	// PollFd.Fd is an int32.
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("netpoll: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}

// setInterest makes exactly the directions in in watched. A new one is
// armed by the next Wait's scan if it is not ready; a dropped one loses
// its helper.
func (d *Driver) setInterest(w *watch, in driver.Interest) {
	old := w.in
	w.in = in
	if w.always {
		if in != 0 && !w.inAlways {
			w.inAlways = true
			d.always = append(d.always, w)
		}
		return
	}
	for dir := range w.h {
		if bit := dirInterest(dir); in&bit == 0 && old&bit != 0 {
			w.armed &^= bit
			if w.h[dir] != nil {
				stopHelper(w, dir)
			}
		}
	}
}

// arm hands a direction found not ready to its helper, started on first
// use.
func (d *Driver) arm(w *watch, dir int) {
	w.armed |= dirInterest(dir)
	if h := w.h[dir]; h != nil {
		select {
		case h.rearm <- struct{}{}:
		default:
		}
		return
	}
	d.gen++
	w.h[dir] = startHelper(d, w, dir, d.gen)
}

// forget drops w, and queues its Closed event if its fd was closed behind
// the driver's back.
func (d *Driver) forget(w *watch, closed bool) {
	delete(d.watches, w.fd)
	last := len(d.list) - 1
	d.list[w.idx] = d.list[last]
	d.list[w.idx].idx = w.idx
	d.list[last] = nil
	d.list = d.list[:last]
	release(w)
	if closed {
		d.pending.Add(w.tok)
	}
}

// post is called by helpers.
func (d *Driver) post(h *helper, failed bool) {
	d.mu.Lock()
	d.posts = append(d.posts, post{w: h.w, dir: h.dir, gen: h.gen, failed: failed})
	d.mu.Unlock()
	select {
	case d.signal <- struct{}{}:
	default:
	}
}

func errClosed(op string) error {
	return fmt.Errorf("netpoll: %s: %w", op, driver.ErrClosed)
}
