//go:build unix || windows

package socket

import (
	"errors"
	"net"
	"syscall"

	"github.com/revoltgo/eventloop/core"
)

// PeerWatch watches a stream connection for its peer's going while the
// connection is otherwise quiet: what net/http's server does with a
// background read while a handler runs, so that the request's context is
// cancelled when the client hangs up. It peeks (MSG_PEEK) when the socket
// turns readable, so it takes no byte from the next Read, and it never
// keeps the loop running by itself.
//
// Bytes from the peer end the watch without a call: they hide any later
// close, so net/http's background read stops at the first byte too. The
// zero value is ready to use; a started PeerWatch must not be copied.
// Start and Stop are called on the loop (a fiber or a callback of the
// conn's loop).
type PeerWatch struct {
	x     core.FDWatch
	fd    *netFD
	gone  func()
	check func() // w.peek, made once: a method value per arm would allocate
}

var errWatchDgram = errors.New("socket: PeerWatch on a datagram socket: only a stream has a peer that goes")

// Start watches c until its peer closes or resets the connection (gone
// runs, once, on the loop), until the peer sends a byte, until Stop, or
// until c is closed (neither of which runs gone). It returns net.ErrClosed
// on a closed conn. It panics if w is started.
func (w *PeerWatch) Start(c *Conn, gone func()) error {
	if gone == nil {
		panic("socket: PeerWatch.Start called with a nil func")
	}
	if !c.ok() {
		return syscall.EINVAL
	}
	if c.fd.dgram() {
		return errWatchDgram
	}
	if w.fd != nil {
		panic("socket: PeerWatch.Start called on a started PeerWatch; Stop it first")
	}
	w.fd, w.gone = c.fd, gone
	if !w.arm() {
		w.fd, w.gone = nil, nil
		return net.ErrClosed
	}
	return nil
}

// Watching reports whether w is started and has not ended.
func (w *PeerWatch) Watching() bool { return w.fd != nil }

// Stop ends the watch (gone does not run after it); it reports whether the
// watch was on.
func (w *PeerWatch) Stop() bool {
	if w.fd == nil {
		return false
	}
	w.x.Stop()
	w.fd, w.gone = nil, nil
	return true
}

func (w *PeerWatch) arm() bool {
	if w.check == nil {
		w.check = w.peek
	}
	return w.fd.pd.Watch(core.Read, &w.x, w.check) == nil
}

// peek runs when the socket may be readable: it peeks, and runs gone on
// the end of the stream or an error (a reset).
func (w *PeerWatch) peek() {
	fd := w.fd
	if fd == nil || !fd.pd.Acquire() {
		w.fd, w.gone = nil, nil
		return // closed: nobody to tell
	}
	n, err := sysPeek(fd.pd.Sysfd())
	fd.pd.Release()
	if err != nil && peekAgain(err) {
		if !w.arm() {
			w.fd, w.gone = nil, nil
		}
		return
	}
	gone := w.gone
	w.fd, w.gone = nil, nil
	if n <= 0 {
		gone()
	}
}
