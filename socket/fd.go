//go:build unix || windows

package socket

import (
	"net"
	"sync/atomic"
	"syscall"

	"github.com/revoltgo/eventloop/core"
)

// netFD is a socket of one loop: the descriptor and the loop's wait for it
// (core.FD: readiness, deadlines, the lock of each direction and the
// reference count that keeps the descriptor open while any call uses it,
// as poll.FD's fdMutex does for net). Close wakes every waiting call,
// waits for the last one to leave and closes the number before it returns,
// so a call never reads a file that took the number, and the address is
// free once Close returns.
//
// It is what an idle connection costs besides its fiber, so what only
// some sockets need lives elsewhere: a listener's state behind ln.
type netFD struct {
	pd core.FD // its loop and descriptor too (Loop, Sysfd)

	net   string
	laddr net.Addr
	raddr net.Addr // a datagram socket is connected if it has one

	family  int16
	sotype  int8         // SOCK_STREAM or SOCK_DGRAM
	drained bool         // the read lock holder's: the last read came back short
	byLoop  atomic.Bool  // closed because the loop was closed
	ln      *listenState // a listener's; nil for a connection

	srv atomic.Pointer[serveState] // a served conn's (Conn.Serve); nil if never served
}

// listenState is what a listener has beyond a connection.
type listenState struct {
	backoff backoffState // out of descriptors (backoff.go)
	unlink  string       // a unix listener's socket file, removed on Close

	// What accepted conns have without a system call: net's options,
	// set on the listening socket (setInherited), and the local address
	// of a listener on one address (nil: ask getsockname).
	inherits bool
	local    *net.TCPAddr
}

// newFD makes the netFD of socket sysfd; on an error the caller still
// owns (and closes) sysfd.
func newFD(l *core.Loop, sysfd, family, sotype int, network string) (*netFD, error) {
	fd := &netFD{family: int16(family), sotype: int8(sotype), net: network}
	if err := fd.pd.Init(l, sysfd, net.ErrClosed); err != nil {
		return nil, err
	}
	return fd, nil
}

func (fd *netFD) dgram() bool { return fd.sotype == sockDgram }

func (fd *netFD) isClosed() bool { return fd.pd.Closing() }

// closedErr is what a call on a closed fd returns.
func (fd *netFD) closedErr() error {
	if fd.byLoop.Load() {
		return errLoopClosed
	}
	return net.ErrClosed
}

// incref takes a reference for a call; false once the fd is closed.
func (fd *netFD) incref() bool { return fd.pd.Acquire() }

// decref drops a call's reference.
func (fd *netFD) decref() { fd.pd.Release() }

// close is Conn.Close and Listener.Close: it returns once the descriptor
// is closed.
func (fd *netFD) close() error {
	if fd.pd.Closing() {
		return fd.closedErr()
	}
	if fd.ln != nil {
		// An Accept asleep in a back-off holds its reference until it
		// wakes: wake it, for good, before Close waits for it.
		fd.wakeBackoff(true)
		if fd.ln.unlink != "" {
			// As net's UnixListener: remove the name before the socket
			// goes, so that nobody connects to a socket about to close.
			_ = syscall.Unlink(fd.ln.unlink)
		}
	}
	err := fd.pd.Close()
	if err == net.ErrClosed {
		return fd.closedErr()
	}
	return err
}

// loopGone closes the fd of a call that found its loop closed, so that the
// descriptor does not outlive it (the last call to leave closes it).
func (fd *netFD) loopGone() {
	fd.byLoop.Store(true)
	_ = fd.pd.Close()
}

// acquire takes a reference and the lock of direction mode for one call:
// calls in one direction take turns, as net's do (two Writes never
// interleave their bytes).
func (fd *netFD) acquire(mode core.Interest) error {
	if fd.pd.Loop().IsClosed() && fd.incref() {
		fd.loopGone()
		fd.decref()
		return errLoopClosed
	}
	return fd.ioErr(fd.pd.Lock(mode))
}

// unlock gives up the lock of direction mode and the call's reference.
func (fd *netFD) unlock(mode core.Interest) { fd.pd.Unlock(mode) }
