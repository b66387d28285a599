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

// read is Conn.Read: one read(2), as net's, whatever the socket type (a
// datagram socket reads one datagram). It is written out rather than on
// ioLoop: its frames are on the stack of every fiber suspended in Read,
// which is most of what an idle connection costs.
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
	skip := fd.drained && fd.l.InFiber()
	fd.drained = false
	// The deadline is looked at once, before the first read: a wait looks
	// at it itself (as poll.FD's Read, which prepares once and then reads
	// after each wait).
	if !skip && fd.pd.Expired(core.Read) {
		fd.unlock(core.Read)
		return 0, os.ErrDeadlineExceeded
	}
	waited := false
	for {
		n, errno := 0, errAgain
		if !skip {
			n, errno = sysRead(fd.sysfd, p)
		}
		skip = false
		var err error
		switch errno {
		case 0:
			fd.drained = n < len(p) && !fd.dgram()
			fd.unlock(core.Read)
			if n == 0 && !fd.dgram() {
				// Where the poller took the socket's pending error to
				// report it (libkqueue), a reset that woke this read
				// reads as the end of the stream: the driver has it.
				if e := fd.pd.Errno(); waited && e != 0 {
					return 0, sysError(callRead, e)
				}
				return 0, io.EOF
			}
			return n, nil
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

// write is Conn.Write: all of p for a stream, written in turns of at
// most maxRW; one datagram for a datagram socket, even an empty one.
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
		var n int
		err := fd.ioLoop(core.Write, "write", func() (err error) {
			n, err = writeErr(fd.sysfd, p)
			return err
		})
		return max(n, 0), err
	}
	// The common case first: the whole of p in one call, without the
	// closure of ioLoop. What is left goes on under the same turn of the
	// lock, so that concurrent Writes still do not interleave.
	if err := fd.acquire(core.Write); err != nil {
		return 0, err
	}
	nn := 0
	if len(p) <= maxRW && !fd.pd.Expired(core.Write) {
		n, errno := sysWrite(fd.sysfd, p)
		switch {
		case errno == 0 && n == len(p):
			fd.unlock(core.Write)
			return n, nil
		case errno == 0 && n > 0:
			nn = n
		case errno != errAgain && errno != errIntr:
			fd.unlock(core.Write)
			return 0, sysError(callWrite, errno)
		}
	}
	err := fd.ioLocked(core.Write, "write", func() error {
		chunk := p[nn:]
		if len(chunk) > maxRW {
			chunk = chunk[:maxRW]
		}
		n, err := writeErr(fd.sysfd, chunk)
		if n > 0 {
			nn += n
		}
		switch {
		case nn == len(p):
			return nil
		case err != nil:
			return err
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		return errAgainNow // written in part: the rest at once
	})
	return nn, err
}

// errAgainNow tells ioLoop to make its call again at once (for EINTR, and
// for what a partial write left). It is an error made once: converting
// an errno to an error at each return would allocate where its value is
// large (Winsock's are).
var errAgainNow error = errIntr

// ioLoop runs call, the system call of one operation, under the lock of
// direction mode (calls in one direction take turns): it checks the deadline, makes
// the call, waits for readiness only if the call says EAGAIN, and makes it
// again at once on EINTR. An errno comes back as an *os.SyscallError
// named name; anything else as call returned it.
func (fd *netFD) ioLoop(mode core.Interest, name string, call func() error) error {
	if err := fd.acquire(mode); err != nil {
		return err
	}
	return fd.ioLocked(mode, name, call)
}

// ioLocked is ioLoop for a caller that holds the lock of mode already; it
// releases it.
func (fd *netFD) ioLocked(mode core.Interest, name string, call func() error) error {
	defer fd.unlock(mode)
	for {
		if fd.pd.Expired(mode) {
			return os.ErrDeadlineExceeded
		}
		switch err := call(); err {
		case nil:
			return nil
		case errAgainNow:
		case errAgain:
			if err := fd.wait(mode); err != nil {
				return err
			}
		default:
			if errno, ok := err.(syscall.Errno); ok {
				return sysError(name, errno)
			}
			return err
		}
	}
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
	return f(fd.sysfd)
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
	if d < 0 {
		return nil
	}
	if d == 0 {
		d = defaultKeepAlive
	}
	if err := fd.setKeepAlive(true); err != nil {
		return err
	}
	if err := fd.setKeepAlivePeriod(d); err != nil && !isNoProtoOpt(err) {
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
		if f(uintptr(fd.sysfd)) {
			return nil
		}
		return errAgain
	})
}
