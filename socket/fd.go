//go:build unix || windows

package socket

import (
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/revoltgo/eventloop/core"
)

// netFD is a socket of one loop: the descriptor, its two directions, and
// the reference count that keeps the descriptor open while any call uses
// it (the Go runtime's poll.FD does the same with its fdMutex): Close marks
// it closed, wakes every waiter and lets go of the loop's watchers; the
// last call to finish closes the number, so a call never reads a file that
// took the number after Close.
//
// It is what an idle connection costs besides its fiber, so what only
// some sockets need lives elsewhere: a listener's state behind ln, the
// callbacks of the loop made when first needed (TestIdleConnections).
type netFD struct {
	l     *core.Loop
	sysfd int

	family int32
	sotype int32 // SOCK_STREAM or SOCK_DGRAM
	net    string
	laddr  net.Addr
	raddr  net.Addr // a datagram socket is connected if it has one

	// state counts references (low bits) and says closed (closedBit). Open
	// holds one reference, dropped by whoever sets closedBit.
	state      atomic.Int64
	byLoop     atomic.Bool // closed because the loop was closed
	touched    atomic.Bool // a wait reached the loop: it may hold watchers and timers
	syncQueued bool        // the loop's: a microtask will bring the watchers and timers in line (sync)
	rd, wr     dir
	ln         *listenState // a listener's; nil for a connection

	syncFn func() // fd.syncDirs, made with the fd: not on a fiber's stack (see enqueue)
}

// listenState is what a listener has beyond a connection.
type listenState struct {
	backoff    atomic.Int64 // no accept(2) before this (mono ns); 0: none
	backoffLen int64        // the next back-off; the read lock guards it
	unlink     string       // a unix listener's socket file, removed on Close
}

const closedBit = 1 << 62

func newFD(l *core.Loop, sysfd, family, sotype int, network string) *netFD {
	fd := &netFD{l: l, sysfd: sysfd, family: int32(family), sotype: int32(sotype), net: network}
	fd.state.Store(1)
	fd.rd.init(fd, false)
	fd.wr.init(fd, true)
	fd.syncFn = fd.syncDirs
	return fd
}

func (fd *netFD) dgram() bool { return fd.sotype == sockDgram }

func (fd *netFD) isClosed() bool { return fd.state.Load()&closedBit != 0 }

// closedErr is what a call on a closed fd returns.
func (fd *netFD) closedErr() error {
	if fd.byLoop.Load() {
		return errLoopClosed
	}
	return net.ErrClosed
}

// incref takes a reference for a call; false once the fd is closed.
func (fd *netFD) incref() bool {
	for {
		s := fd.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if fd.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// decref drops a reference; the last one of a closed fd closes it.
func (fd *netFD) decref() {
	if fd.state.Add(-1) == closedBit {
		fd.destroy()
	}
}

// markClosed sets closedBit; only the caller that set it gets true (and
// owes the open reference).
func (fd *netFD) markClosed() bool {
	for {
		s := fd.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if fd.state.CompareAndSwap(s, s|closedBit) {
			return true
		}
	}
}

// destroy closes the number once no call uses it. Close has let go of the
// loop's watchers already (release), unless the loop was closed, which
// took them with its driver: so on the loop CloseFD does it, elsewhere a
// plain close (CloseFD is not safe from other goroutines).
func (fd *netFD) destroy() {
	if !fd.l.IsClosed() && fd.l.InFiber() {
		_ = fd.l.CloseFD(fd.sysfd)
		return
	}
	_ = sysClose(fd.sysfd)
}

// close is Conn.Close and Listener.Close.
func (fd *netFD) close() error {
	if !fd.markClosed() {
		return fd.closedErr()
	}
	if fd.ln != nil && fd.ln.unlink != "" {
		// As net's UnixListener: remove the name before the socket goes,
		// so that nobody connects to a socket about to close.
		_ = syscall.Unlink(fd.ln.unlink)
	}
	// A wait sets touched before it looks at closedBit, and Close the
	// other way round: a wait that Close does not see finds the fd closed
	// and makes nothing on the loop.
	var err error
	if fd.touched.Load() {
		err = fd.onLoopSync(fd.release)
	}
	fd.decref()
	if err == errLoopClosed {
		return nil // the loop took the watchers with it
	}
	return err
}

// loopGone closes the fd of a call that found its loop closed, so that the
// descriptor does not outlive it.
func (fd *netFD) loopGone() {
	fd.byLoop.Store(true)
	if fd.markClosed() {
		fd.decref()
	}
}

// release wakes every waiter of a closed fd and lets go of its watchers
// and timers; it runs on the loop.
func (fd *netFD) release() {
	if fd.l.IsClosed() {
		return // Close unwinds the fibers and takes the driver
	}
	fd.rd.release()
	fd.wr.release()
}

// acquire takes a reference and the lock of direction d for one call:
// calls in one direction take turns, as net's do (two Writes never
// interleave their bytes).
func (fd *netFD) acquire(d *dir) error {
	if !fd.incref() {
		return fd.closedErr()
	}
	if fd.l.IsClosed() {
		fd.loopGone()
		fd.decref()
		return errLoopClosed
	}
	if d.lock.CompareAndSwap(0, 1) {
		return nil
	}
	d.lockWait.Add(1)
	for {
		var err error
		switch {
		case fd.isClosed():
			err = fd.closedErr()
		case d.lock.CompareAndSwap(0, 1):
			d.lockWait.Add(-1)
			return nil
		case d.expired():
			err = os.ErrDeadlineExceeded
		default:
			err = d.wait(waitLock)
		}
		if err != nil {
			d.lockWait.Add(-1)
			fd.decref()
			return err
		}
	}
}

// unlock gives up the lock of d and the reference of the call.
func (fd *netFD) unlock(d *dir) {
	d.lock.Store(0)
	// A waiter counts itself before its last try of the lock, so either
	// it sees the lock free or this sees it waiting.
	if d.lockWait.Load() > 0 {
		// From a fiber at once; from elsewhere posted (dropped if the
		// loop is closed: its waiters see Done). Only the post makes a
		// closure.
		if fd.l.InFiber() {
			d.wakeOther()
		} else {
			_ = fd.l.Post(d.wakeOther)
		}
	}
	fd.decref()
}

// onLoopSync runs fn on the loop and returns once it has run: at once from
// one of its fibers, else posted and waited for (see block).
func (fd *netFD) onLoopSync(fn func()) error {
	if fd.l.IsClosed() {
		return errLoopClosed
	}
	if fd.l.InFiber() {
		fn()
		return nil
	}
	w := newGoroutineWaiter(nil, 0)
	if err := fd.l.Post(func() {
		fn()
		w.wake()
	}); err != nil {
		return errLoopClosed
	}
	return block(fd.l, w, true)
}
