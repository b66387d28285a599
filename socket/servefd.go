//go:build unix || windows

package socket

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/revoltgo/eventloop/core"
)

// A served conn (Conn.Serve) waits for its next bytes through a
// core.FDWatch, not a fiber: its func (ready) runs as a microtask, in the
// fiber that drains the loop's queues, reads into the loop's buffer
// (servebuf.go) and calls the Handler right there. A Handler that returns
// leaves that fiber to the loop; one that suspends keeps it, and the loop
// replaces its draining fiber (the drain rule), so a wake allocates
// nothing and a suspended run costs its own fiber only.

// serveState is a served conn's: what an idle conn costs besides its
// netFD, so its fields are ordered to fit a 192-byte size class.
type serveState struct {
	x     core.FDWatch // Referenced: a served conn keeps Run going
	fd    *netFD
	c     *Conn
	h     Handler
	ls    *loopServe
	wake  func()       // s.ready, made once: a method value per arm would allocate
	state atomic.Int32 // serving, stopped or ended; Serve reads it from any goroutine

	// The loop's.
	busy       bool // a run is under way: from the wake to the next arm
	stopAsked  bool // StopServing during a run
	listed     bool
	prev, next *serveState // ls's list of served conns, for the loop's Close

	mu   sync.Mutex // kept: a Read on another goroutine takes them too
	kept []byte     // what the Handler left; nil when nothing
}

const (
	serving int32 = iota
	stopped       // StopServing: the conn is its caller's again
	ended         // the Handler had its last call; the conn is closed
)

var (
	errServeDgram = errors.New("socket: Serve on a datagram socket: only a stream is served")
	errServed     = errors.New("socket: Serve on a conn that is served already (StopServing first)")
)

// serve is Conn.Serve.
func (fd *netFD) serve(c *Conn, h Handler) error {
	if fd.dgram() {
		return errServeDgram
	}
	if fd.isClosed() {
		return fd.closedErr()
	}
	if fd.pd.Loop().IsClosed() {
		fd.loopGone()
		return errLoopClosed
	}
	s := &serveState{fd: fd, c: c, h: h}
	s.x.Referenced = true // a served conn keeps Run going, as a waiting Read does
	s.x.OnDeadline = true // and its read deadline ends it
	s.wake = s.ready
	for {
		old := fd.srv.Load()
		if old != nil && old.state.Load() == serving {
			return errServed
		}
		if fd.srv.CompareAndSwap(old, s) {
			if old != nil {
				s.putKept(old.takeKept())
			}
			break
		}
	}
	if fd.pd.Loop().InFiber() {
		s.start()
		return nil
	}
	if err := fd.pd.Loop().Post(s.start); err != nil {
		fd.srv.CompareAndSwap(s, nil)
		fd.loopGone()
		return errLoopClosed
	}
	return nil
}

// start lists s with its loop and queues its first run; on the loop. The
// first run reads before the conn is registered with the driver: bytes
// that came with it (a request right behind the handshake) are served
// without a registration or a trip through the driver, and a conn closed
// in that run is never registered; a conn with nothing yet arms its watch
// there.
func (s *serveState) start() {
	l := s.fd.pd.Loop()
	if l.IsClosed() {
		s.fd.loopGone()
		s.end(errLoopClosed, true)
		return
	}
	s.ls = loopServeOf(l)
	s.ls.add(s)
	l.Queue(s.wake)
}

// arm waits for the conn's next bytes; on the loop, between runs.
func (s *serveState) arm() {
	fd := s.fd
	// A read deadline that has passed: Watch says so (OnDeadline).
	if err := fd.pd.Watch(core.Read, &s.x, s.wake); err != nil {
		s.end(fd.ioErr(err), true)
	}
}

// ready is the watch's func: the conn may be readable. It reads once into
// the loop's buffer, behind the bytes the Handler left, and runs the
// Handler; readiness is a hint, so a read that finds nothing arms again.
func (s *serveState) ready() {
	if s.state.Load() != serving {
		return // a first run after StopServing, Close or the loop's Close
	}
	fd := s.fd
	s.busy = true
	if err := fd.acquire(core.Read); err != nil {
		s.end(err, true)
		return
	}
	if s.stopAsked {
		// StopServing came while the run waited for the read lock (a
		// Read held it): what comes is its caller's, bytes or error.
		fd.unlock(core.Read)
		s.stopNow()
		return
	}
	if fd.pd.Expired(core.Read) {
		fd.unlock(core.Read)
		s.end(os.ErrDeadlineExceeded, true)
		return
	}
	own := s.takeKept()
	k := len(own)
	var r *readBuf
	var room []byte
	start := 0
	if k <= serveBufSize-serveMinRead {
		r = s.ls.buffer(k + serveMinRead)
		start = r.top
		room = r.b[start:]
		if k > 0 {
			copy(room, own)
		}
	} else {
		// More than the loop's buffer takes: the bytes grow where they
		// are kept (a Handler that waits for a long message).
		own = slices.Grow(own, serveMinRead)
		room = own[:cap(own)]
	}
	n, errno := sysRead(fd.pd.Sysfd(), room[k:])
	for errno == errIntr {
		n, errno = sysRead(fd.pd.Sysfd(), room[k:])
	}
	var err error
	switch {
	case errno == errAgain:
	case errno != 0:
		err = sysError(callRead, errno)
	case n == 0:
		err = io.EOF
		// Where the poller took the socket's pending error to report it
		// (libkqueue), a reset reads as the end of the stream (see read).
		if e := fd.pd.Errno(); e != 0 {
			err = sysError(callRead, e)
		}
	default:
		fd.drained = k+n < len(room)
	}
	fd.unlock(core.Read)
	if errno != 0 || err != nil {
		s.putKept(own[:k])
		switch {
		case err != nil:
			s.end(err, true)
		default:
			s.busy = false
			s.arm()
		}
		return
	}
	in := room[:k+n]
	if r != nil {
		r.top = start + len(in)
		r.lent++
	}
	if used := s.call(in, r, start); used < len(in) {
		s.keep(in[used:], own[:0])
	}
	if r != nil {
		s.ls.release(r, start, start+len(in))
	}
	s.busy = false
	if s.stopAsked {
		s.stopNow()
		return
	}
	s.arm()
}

// call runs the Handler on in and returns what it consumed. A Handler
// that panics (or returns a count outside in) is not called again: its
// conn is closed on the way out, and the panic goes on to the loop.
func (s *serveState) call(in []byte, r *readBuf, start int) int {
	done := false
	defer func() {
		if !done {
			if r != nil {
				s.ls.release(r, start, start+len(in))
			}
			s.end(nil, false)
		}
	}()
	used := s.h(s.c, in, nil)
	if used < 0 || used > len(in) {
		panic(fmt.Sprintf("socket: a Handler returned %d for %d bytes; it returns how many of in it consumed, 0 to len(in)", used, len(in)))
	}
	done = true
	return used
}

// end serves the conn for the last time: the Handler's last call (with
// err, unless final is false: it panicked), then Close. Once.
func (s *serveState) end(err error, final bool) {
	if s.state.Swap(ended) == ended {
		return
	}
	s.busy = true // the loop's Close leaves it alone
	s.x.Stop()
	if s.ls != nil {
		s.ls.remove(s)
	}
	in := s.takeKept()
	defer s.fd.close()
	if final {
		s.h(s.c, in, s.fd.readError(err))
	}
}

// stopNow makes the conn its caller's again: no watch, no more runs; the
// kept bytes stay for Read. On the loop, between runs.
func (s *serveState) stopNow() {
	s.x.Stop()
	s.stopAsked, s.busy = false, false
	s.state.Store(stopped)
	if s.ls != nil {
		s.ls.remove(s)
	}
}

// stopServing is Conn.StopServing.
func (fd *netFD) stopServing() bool {
	s := fd.srv.Load()
	if s == nil || s.state.Load() != serving {
		return false
	}
	l := fd.pd.Loop()
	if l.InFiber() {
		return s.stop()
	}
	ok := false
	done := make(chan struct{})
	if l.Post(func() { ok = s.stop(); close(done) }) != nil {
		return false
	}
	for {
		err := l.RunUntil(done)
		if err == nil || errors.Is(err, core.ErrLoopClosed) {
			break
		}
		// An uncaught error ended the run this goroutine made: the post
		// is still to run (as in core.FD.Close).
	}
	select {
	case <-done:
		return ok
	default:
		return false // the loop was closed first
	}
}

// stop is StopServing on the loop.
func (s *serveState) stop() bool {
	if s.state.Load() != serving || s.stopAsked {
		return false
	}
	if s.busy {
		s.stopAsked = true
		return true
	}
	s.stopNow()
	return true
}

// takeKept takes the kept bytes away (nil if none).
func (s *serveState) takeKept() []byte {
	s.mu.Lock()
	k := s.kept
	s.kept = nil
	s.mu.Unlock()
	return k
}

// putKept gives back what takeKept took.
func (s *serveState) putKept(k []byte) {
	if len(k) == 0 {
		k = nil
	}
	s.mu.Lock()
	s.kept = k
	s.mu.Unlock()
}

// keep keeps rest, what the Handler left (not nothing), for its next run:
// in buf's array if it fits and is not much larger, else in one of its own
// size; an idle conn holds what it needs. A run that leaves nothing need
// not call it: the run took kept, which has stayed nil since (only the
// loop fills it).
func (s *serveState) keep(rest, buf []byte) {
	if cap(buf) < len(rest) || cap(buf)/4 > len(rest) {
		buf = make([]byte, 0, len(rest))
	}
	k := buf[:len(rest)]
	copy(k, rest) // rest may overlap k: copy moves
	s.putKept(k)
}

// served reports whether fd was ever served; inlined in Conn.Read, it
// costs a conn that never was one load.
func (fd *netFD) served() bool { return fd.srv.Load() != nil }

// readKept is the start of Conn.Read on a served conn: the bytes a
// Handler left come first.
func (fd *netFD) readKept(b []byte) (int, bool) {
	s := fd.srv.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.kept) == 0 || len(b) == 0 || s.fd.isClosed() {
		return 0, false
	}
	n := copy(b, s.kept)
	s.kept = s.kept[n:]
	if len(s.kept) == 0 {
		s.kept = nil
	}
	return n, true
}
