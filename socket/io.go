//go:build unix || windows

package socket

import (
	"io"
	"os"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// maxRW caps one read(2) or write(2), as net does: some kernels reject
// larger counts.
const maxRW = 1 << 30

// Every system call of the package that can say "would block" is made
// through one loop, retry, as every call of net's goes through the shape
// of poll.FD.Read: the call, EINTR again, EAGAIN a wait for readiness,
// the deadline, one error path. Conn.Read alone has it written out (read,
// which says why). What differs between operations is only call, which
// makes the system call once and says how it went:
//
//   - nil: done;
//   - errAgainNow: make it again at once (EINTR, a write that went in
//     part, a back-off slept out);
//   - errAgain: wait until the socket may be ready in the direction, then
//     make it again;
//   - a syscall.Errno: it failed; the error is an *os.SyscallError named
//     for the call;
//   - anything else: the operation ends with that error, as it is.
//
// Errors leave retry final: what the caller gets, but for the
// *net.OpError that the exported method wraps it in (errors.go).

// errAgainNow tells retry to make its call again at once. It is an error
// made once: converting an errno to an error at each return would
// allocate where its value is large (Winsock's are).
var errAgainNow error = errIntr

// retry makes call, the system call of one operation in direction mode,
// until it is done (see above); name names it in errors. The caller holds
// the direction's lock (ioLoop), or a reference where the socket is not
// shared yet (connect).
func (fd *netFD) retry(mode core.Interest, name string, call func() error) error {
	for {
		if fd.pd.Expired(mode) {
			return os.ErrDeadlineExceeded
		}
		switch err := call(); err {
		case nil:
			return nil
		case errAgainNow:
		case errAgain:
			if err := fd.pd.Wait(mode); err != nil {
				return fd.ioErr(err)
			}
		default:
			return callErr(name, err)
		}
	}
}

// callErr is the error of a call that failed: an errno becomes an
// *os.SyscallError named name; anything else is final already.
//
//go:noinline
func callErr(name string, err error) error {
	if errno, ok := err.(syscall.Errno); ok {
		return sysError(name, errno)
	}
	return err
}

// ioLoop is retry under the lock of direction mode: calls in one
// direction take turns, as net's do (two Writes never interleave their
// bytes).
func (fd *netFD) ioLoop(mode core.Interest, name string, call func() error) error {
	if err := fd.acquire(mode); err != nil {
		return err
	}
	err := fd.retry(mode, name, call)
	fd.unlock(mode)
	return err
}

// read is Conn.Read: one read(2), as net's, whatever the socket type (a
// datagram socket reads one datagram). It is retry written out for
// read(2), in retry's shape, because an idle connection's fiber is
// suspended here: the frames that retry and its call put between this
// and core.FD.Wait (about 140 bytes) take that fiber past the 2 KiB of
// stack it starts with, and the runtime doubles it (TestIdleConnections:
// from 2 KiB of stack per idle connection to 4; 32 bytes more than this
// frame still fit).
func (fd *netFD) read(p []byte) (int, error) {
	if len(p) == 0 {
		// As net: at once, without a system call (which would say 0, like
		// the end of the stream, or take a datagram away).
		if fd.isClosed() {
			return 0, fd.closedErr()
		}
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	if err := fd.acquire(core.Read); err != nil {
		return 0, err
	}
	// A stream read that came back short left the socket empty, so the
	// next one would most likely say EAGAIN: a fiber waits for readiness
	// first instead (level-triggered, so data that came meanwhile is
	// reported at once), which saves one system call per round trip of a
	// request-response protocol. Tokio's reads do the same. Any other
	// caller tries the call first: a wait costs it a trip to the loop.
	skip := fd.drained && fd.pd.Loop().InFiber()
	fd.drained = false
	waited := false
	for {
		if fd.pd.Expired(core.Read) {
			fd.unlock(core.Read)
			return 0, os.ErrDeadlineExceeded
		}
		n, errno := 0, errAgain
		if !skip {
			n, errno = sysRead(fd.pd.Sysfd(), p)
		}
		skip = false
		var err error
		switch errno {
		case 0:
			fd.drained = n < len(p) && !fd.dgram()
			if n == 0 && !fd.dgram() {
				// Where the poller took the socket's pending error to
				// report it (libkqueue), a reset that woke this read
				// reads as the end of the stream: the driver has it.
				err = io.EOF
				if e := fd.pd.Errno(); waited && e != 0 {
					err = sysError(callRead, e)
				}
			}
		case errIntr:
			continue
		case errAgain:
			if err = fd.pd.Wait(core.Read); err == nil {
				waited = true
				continue
			}
			err = fd.ioErr(err)
		default:
			// n is 0, or on Windows what a datagram longer than p left
			// in it (WSAEMSGSIZE: net returns both).
			err = sysError(callRead, errno)
		}
		fd.unlock(core.Read)
		return n, err
	}
}

// write is Conn.Write: all of p for a stream; one datagram for a
// datagram socket, even an empty one.
func (fd *netFD) write(p []byte) (int, error) {
	if len(p) == 0 && !fd.dgram() {
		if fd.isClosed() {
			return 0, fd.closedErr()
		}
		return 0, nil
	}
	if fd.dgram() {
		if err := datagramFits(p); err != nil {
			return 0, err
		}
	}
	if err := fd.acquire(core.Write); err != nil {
		return 0, err
	}
	n, err := fd.writeLocked(p)
	fd.unlock(core.Write)
	return n, err
}

// writeLocked is write once the caller holds the write lock (Write, and
// the handshake of a TLSConn): a stream's p in turns of at most maxRW,
// all under the one turn of the lock, so that concurrent Writes do not
// interleave.
func (fd *netFD) writeLocked(p []byte) (int, error) {
	nn := 0
	err := fd.retry(core.Write, callWrite, func() error {
		n, errno := sysWrite(fd.pd.Sysfd(), p[nn:min(len(p), nn+maxRW)])
		if n > 0 {
			nn += n
		}
		switch {
		case errno != 0:
			return errnoErr(errno)
		case nn == len(p) || fd.dgram():
			return nil
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		return errAgainNow // written in part: the rest at once
	})
	return nn, err
}

// shutdown is CloseRead (read) or CloseWrite.
func (fd *netFD) shutdown(read bool) error {
	how := shutWr
	if read {
		how = shutRd
	}
	return fd.control(func(s int) error {
		return wrapSyscall("shutdown", sysShutdown(s, how))
	})
}

// control calls f with the descriptor, which stays open meanwhile.
func (fd *netFD) control(f func(s int) error) error {
	if !fd.incref() {
		return fd.closedErr()
	}
	defer fd.decref()
	return f(fd.pd.Sysfd())
}

func (fd *netFD) setsockopt(level, opt, v int) error {
	return fd.control(func(s int) error {
		return wrapSyscall("setsockopt", setsockoptInt(s, level, opt, v))
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (fd *netFD) setNoDelay(on bool) error {
	return fd.setsockopt(ipprotoTCP, tcpNoDelay, boolInt(on))
}

func (fd *netFD) setKeepAlive(on bool) error {
	return fd.setsockopt(solSocket, soKeepAlive, boolInt(on))
}

// setKeepAlivePeriod takes d as net's does: 0 is the default period, and
// a negative d changes nothing.
func (fd *netFD) setKeepAlivePeriod(d time.Duration) error {
	switch {
	case d < 0:
		return nil
	case d == 0:
		d = defaultKeepAlive
	}
	return fd.control(func(s int) error { return setKeepAlivePeriod(s, d) })
}

func (fd *netFD) setBuffer(read bool, bytes int) error {
	opt := soSndbuf
	if read {
		opt = soRcvbuf
	}
	return fd.setsockopt(solSocket, opt, bytes)
}

// keepAlive applies a keep-alive period as net's conns do: 0 is the
// default period, negative is off.
func (fd *netFD) keepAlive(d time.Duration) error {
	return fd.control(func(s int) error { return keepAliveOn(s, d) })
}

// keepAliveOn is keepAlive on socket s: a new conn's, or a listening
// socket whose conns inherit it (setInherited).
func keepAliveOn(s int, d time.Duration) error {
	if d < 0 {
		return nil
	}
	if d == 0 {
		d = defaultKeepAlive
	}
	if err := wrapSyscall("setsockopt", setsockoptInt(s, solSocket, soKeepAlive, 1)); err != nil {
		return err
	}
	if err := setKeepAlivePeriod(s, d); err != nil && !isNoProtoOpt(err) {
		return err
	}
	return nil
}

// defaultKeepAlive is net's default keep-alive idle time and interval.
const defaultKeepAlive = 15 * time.Second

// secondsUp rounds d up to whole seconds, at least one.
func secondsUp(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

func (fd *netFD) rawControl(f func(uintptr)) error {
	return fd.control(func(s int) error {
		f(uintptr(s))
		return nil
	})
}

// rawWait is RawConn.Read and Write: f until it is done, waiting for the
// direction between calls, under the direction's lock and deadline.
func (fd *netFD) rawWait(write bool, f func(uintptr) bool) error {
	mode := core.Read
	if write {
		mode = core.Write
	}
	return fd.ioLoop(mode, "", func() error {
		if f(uintptr(fd.pd.Sysfd())) {
			return nil
		}
		return errAgain
	})
}
