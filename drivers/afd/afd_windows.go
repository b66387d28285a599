//go:build windows

package afd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/waker"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// Available says whether this build has the driver: on Windows only, where
// AFD is. Package eventloop offers the drivers whose Available is true.
const Available = true

// Driver is a driver.Driver over AFD polls and an I/O completion port.
// The zero value is not usable; call New.
type Driver struct {
	port    windows.Handle
	helpers []helper // by index; a closed one (h 0) is reopened in place
	open    int      // helpers open
	slots   []slot
	ops     []*[chunk]op // ops[i/chunk][i%chunk] is slot i's (opsmem_windows.go)
	free    []int32      // slots to reuse
	index   map[int]int32
	queue   []int32 // slots to arm before the next wait
	now     []int32 // slots whose poll completed unreported (a cancel): armed again in this Wait
	gone    []int32 // slots whose socket an arm found gone: reported Closed next
	pending int     // polls submitted whose completion has not been dequeued
	entries []entry
	early   []entry // completions Deregister dequeued for the next Wait (settle)

	wake   waker.Waker
	closed atomic.Bool // read by Wakeup on other goroutines
	wine   bool        // running under Wine (lag_windows.go)
}

// groupSize is how many sockets share an AFD handle, as in wepoll and mio:
// the kernel keeps a handle's pending polls in one list, and cancelling
// one is cheaper in a short one.
const groupSize = 32

type helper struct {
	h     windows.Handle
	users int
}

// A slot is one registration, and outlives it while its poll is pending:
// the kernel still owns its op, so the slot is reused only once the poll's
// completion has been dequeued.
type slot struct {
	fd     int
	base   windows.Handle // the socket as AFD knows it
	helper int32
	tok    driver.Token
	in     driver.Interest
	asked  uint32 // the events of the pending poll; 0 when none is pending
	state  state
	live   bool // registered (false: deregistered, its poll not yet done)
	queued bool
	gone   bool // an arm found the socket gone: on d.gone, to be reported
}

type state uint8

const (
	idle       state = iota
	polling          // a poll is pending
	cancelling       // a pending poll was cancelled; its completion is due
)

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New makes the completion port, its wakeup and one AFD handle; more are
// opened as sockets are registered, one per groupSize of them, and closed
// again when unused, down to the first.
func New() (*Driver, error) {
	if err := winsock.Startup(); err != nil {
		return nil, fmt.Errorf("afd: %w", err)
	}
	port, err := newPort()
	if err != nil {
		return nil, fmt.Errorf("afd: %w", err)
	}
	d := &Driver{port: port, index: make(map[int]int32), entries: make([]entry, 256), wine: underWine()}
	if _, err := d.helperWithRoom(); err != nil {
		windows.CloseHandle(port)
		return nil, fmt.Errorf("afd: %w", err)
	}
	d.wake.OpenTrigger(func() error { return post(d.port) })
	return d, nil
}

// Name returns "afd".
func (d *Driver) Name() string { return "afd" }

// Resolution is a millisecond: GetQueuedCompletionStatusEx takes its
// timeout in milliseconds.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register implements driver.Driver. A handle that is not an open socket
// is refused here (winsock.CheckSocket), so that Wait never meets it.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if _, ok := d.index[fd]; ok {
		return fmt.Errorf("afd: register fd %d: %w", fd, fs.ErrExist)
	}
	h := windows.Handle(fd)
	if err := winsock.CheckSocket(h); err != nil {
		return fmt.Errorf("afd: register fd %d: %w", fd, err)
	}
	base, err := winsock.BaseHandle(h)
	if err != nil {
		return fmt.Errorf("afd: register fd %d: %w", fd, err)
	}
	// The slot first: a handle opened for it and then left without a
	// user would stay open until Close.
	id, err := d.alloc()
	if err != nil {
		return fmt.Errorf("afd: register fd %d: %w", fd, err)
	}
	hi, err := d.helperWithRoom()
	if err != nil {
		d.release(id)
		return fmt.Errorf("afd: register fd %d: %w", fd, err)
	}
	d.slots[id] = slot{fd: fd, base: base, helper: hi, tok: tok, in: in & (driver.Read | driver.Write), live: true,
		queued: d.slots[id].queued}
	d.helpers[hi].users++
	d.index[fd] = id
	d.enqueue(id)
	return nil
}

// Modify implements driver.Driver. A pending poll that asks for other
// events is cancelled; its completion arms the new ones.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	id, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("afd: modify fd %d: %w", fd, fs.ErrNotExist)
	}
	s := &d.slots[id]
	s.tok, s.in = tok, in&(driver.Read|driver.Write)
	if s.state == polling && s.asked != events(s.in) {
		if err := d.cancel(id); err != nil {
			return fmt.Errorf("afd: modify fd %d: %w", fd, err)
		}
	}
	d.enqueue(id)
	return nil
}

// Deregister implements driver.Driver. It cancels the pending poll, if
// any, which AFD does whatever became of the socket, so it succeeds for a
// socket that was closed, or closed and its handle reused.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	id, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("afd: deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	d.forget(id)
	return nil
}

// Wakeup implements driver.Driver; it is safe from any goroutine. It posts
// a packet to the completion port.
func (d *Driver) Wakeup() error { return d.wake.Wakeup() }

// Close cancels every pending poll and closes the AFD handles (which
// completes any left), waits for those completions (until then the
// kernel may still write to the ops), and closes the port. The registered
// sockets belong to the caller and stay open.
func (d *Driver) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil // a second Close is a no-op
	}
	err := d.wake.Close() // no Wakeup posts to the port after this
	// Cancelled one by one, as wepoll and mio do: that closing its handle
	// completes a poll is what Wine does, and Windows does not document.
	for id := range d.slots {
		if s := &d.slots[id]; s.state == polling {
			_ = d.cancel(int32(id))
		}
	}
	for _, h := range d.helpers {
		if h.h != 0 {
			err = errors.Join(err, os.NewSyscallError("CloseHandle", windows.CloseHandle(h.h)))
		}
	}
	if left := d.drain(closeDrainFor); left > 0 {
		// The kernel may still write to the ops: leave their memory
		// allocated rather than give it back.
		err = errors.Join(err, fmt.Errorf("afd: %d polls did not complete within %v of closing their AFD handles; their memory is left allocated", left, closeDrainFor))
	} else {
		for _, c := range d.ops {
			err = errors.Join(err, freeOps(c))
		}
	}
	err = errors.Join(err, os.NewSyscallError("CloseHandle", windows.CloseHandle(d.port)))
	d.helpers, d.slots, d.ops, d.index, d.queue, d.now, d.gone, d.free = nil, nil, nil, nil, nil, nil, nil, nil
	return err
}

func (d *Driver) check(op string, fd int) error {
	if d.closed.Load() {
		return driver.ErrClosed
	}
	if fd < 0 {
		return fmt.Errorf("afd: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}

// alloc returns a free slot, growing the ops by a chunk when none is left.
func (d *Driver) alloc() (int32, error) {
	if n := len(d.free); n > 0 {
		id := d.free[n-1]
		d.free = d.free[:n-1]
		return id, nil
	}
	id := int32(len(d.slots))
	if int(id)%chunk == 0 {
		c, err := allocOps()
		if err != nil {
			return 0, err
		}
		d.ops = append(d.ops, c)
	}
	d.slots = append(d.slots, slot{})
	return id, nil
}

func (d *Driver) op(id int32) *op { return &d.ops[id/chunk][id%chunk] }

// forget ends registration id. Its slot is reused at once if no poll is
// pending, else once that poll's completion has been dequeued.
func (d *Driver) forget(id int32) {
	s := &d.slots[id]
	hi := s.helper
	delete(d.index, s.fd)
	d.helpers[hi].users--
	s.live = false
	switch s.state {
	case polling:
		// Should the cancel fail, the poll still completes when the
		// socket does something or is closed: the slot waits for it.
		if d.cancel(id) == nil {
			d.settle(id)
		}
	case idle:
		d.release(id)
	}
	d.closeIfUnused(hi)
}

// settle waits, for at most settleMax, for the completion of slot id's
// cancelled poll, keeping what else it dequeues for the next Wait: a
// pending poll holds its socket, and the caller is about to close it. Go's
// net waits so for a cancelled AcceptEx before closesocket; without it, a
// listener closed while a poll of another thread's was pending kept its
// port bound for up to 20 ms under Wine, which completes the poll only
// once the thread that made it has run an APC.
func (d *Driver) settle(id int32) {
	var buf [16]entry
	for end := time.Now().Add(settleMax); d.slots[id].state == cancelling; {
		left := time.Until(end)
		if left <= 0 {
			return // the slot goes on waiting for the completion
		}
		n, err := dequeue(d.port, buf[:], waitMs(left))
		if err != nil || n == 0 {
			return
		}
		for _, e := range buf[:n] {
			if e.Overlapped != 0 && int32(e.Overlapped-1) == id {
				d.complete(id, windows.NTStatus(uint32(e.Internal)))
				continue
			}
			d.early = append(d.early, e)
		}
	}
}

// settleMax bounds settle: a hang guard, far above the APC's delay (a
// variable for the test of a slot whose completion comes later).
var settleMax = time.Second

// release makes slot id free. One still in the queue stays marked so, so
// that its next registration is not queued twice.
func (d *Driver) release(id int32) {
	d.slots[id] = slot{queued: d.slots[id].queued}
	d.free = append(d.free, id)
}

// cancel cancels slot id's pending poll; its completion comes with
// STATUS_CANCELLED (or with events, if they won the race).
func (d *Driver) cancel(id int32) error {
	s := &d.slots[id]
	s.state = cancelling
	return cancel(d.helpers[s.helper].h, d.op(id))
}

func (d *Driver) enqueue(id int32) {
	if s := &d.slots[id]; !s.queued {
		s.queued = true
		d.queue = append(d.queue, id)
	}
}

// helperWithRoom returns an open AFD handle with fewer than groupSize
// users, opening one if there is none.
func (d *Driver) helperWithRoom() (int32, error) {
	reuse := -1
	for i := range d.helpers {
		switch hp := &d.helpers[i]; {
		case hp.h != 0 && hp.users < groupSize:
			return int32(i), nil
		case hp.h == 0 && reuse < 0:
			reuse = i
		}
	}
	h, err := openHelper(d.port)
	if err != nil {
		return 0, err
	}
	if reuse < 0 {
		d.helpers = append(d.helpers, helper{})
		reuse = len(d.helpers) - 1
	}
	d.helpers[reuse] = helper{h: h}
	d.open++
	return int32(reuse), nil
}

// closeIfUnused closes AFD handle i once no socket uses it, unless it is
// the last one open: a driver that watched thousands of sockets goes back
// to one handle, and one that registers and deregisters a socket in turn
// does not open a handle each time. Closing it completes the polls still
// pending on it (deregistered, cancelled), whose slots wait for that.
func (d *Driver) closeIfUnused(i int32) {
	hp := &d.helpers[i]
	if hp.users > 0 || d.open == 1 {
		return
	}
	windows.CloseHandle(hp.h)
	hp.h = 0
	d.open--
}
