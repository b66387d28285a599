//go:build unix

package socket

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// maxRW caps one read(2) or write(2), as net does: some kernels reject
// larger counts.
const maxRW = 1 << 30

func (fd *netFD) read(p []byte) (int, error) {
	if len(p) == 0 {
		if fd.isClosed() {
			return 0, fd.closedErr()
		}
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	d := &fd.rd
	if err := fd.acquire(d); err != nil {
		return 0, err
	}
	defer fd.unlock(d)
	for {
		if d.expired() {
			return 0, os.ErrDeadlineExceeded
		}
		n, err := unix.Read(fd.sysfd, p)
		switch err {
		case nil:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case unix.EINTR:
		case unix.EAGAIN:
			if err := d.wait(waitIO); err != nil {
				return 0, err
			}
		default:
			return 0, os.NewSyscallError("read", err)
		}
	}
}

func (fd *netFD) write(p []byte) (int, error) {
	if len(p) == 0 {
		if fd.isClosed() {
			return 0, fd.closedErr()
		}
		return 0, nil
	}
	d := &fd.wr
	if err := fd.acquire(d); err != nil {
		return 0, err
	}
	defer fd.unlock(d)
	nn := 0
	for {
		if d.expired() {
			return nn, os.ErrDeadlineExceeded
		}
		chunk := p[nn:]
		if len(chunk) > maxRW {
			chunk = chunk[:maxRW]
		}
		n, err := unix.Write(fd.sysfd, chunk)
		if n > 0 {
			nn += n
		}
		if nn == len(p) {
			return nn, nil
		}
		switch err {
		case nil:
			if n == 0 {
				return nn, io.ErrUnexpectedEOF
			}
		case unix.EINTR:
		case unix.EAGAIN:
			if err := d.wait(waitIO); err != nil {
				return nn, err
			}
		default:
			return nn, os.NewSyscallError("write", err)
		}
	}
}

// shutdown is CloseRead (read) or CloseWrite.
func (fd *netFD) shutdown(read bool) error {
	how := unix.SHUT_WR
	if read {
		how = unix.SHUT_RD
	}
	return fd.control(func(s int) error {
		return os.NewSyscallError("shutdown", unix.Shutdown(s, how))
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
		return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, level, opt, v))
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (fd *netFD) setNoDelay(on bool) error {
	return fd.setsockopt(unix.IPPROTO_TCP, unix.TCP_NODELAY, boolInt(on))
}

func (fd *netFD) setKeepAlive(on bool) error {
	return fd.setsockopt(unix.SOL_SOCKET, unix.SO_KEEPALIVE, boolInt(on))
}

func (fd *netFD) setKeepAlivePeriod(d time.Duration) error {
	return fd.control(func(s int) error { return setKeepAlivePeriod(s, d) })
}

func (fd *netFD) setBuffer(read bool, bytes int) error {
	opt := unix.SO_SNDBUF
	if read {
		opt = unix.SO_RCVBUF
	}
	return fd.setsockopt(unix.SOL_SOCKET, opt, bytes)
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
	d := &fd.rd
	if write {
		d = &fd.wr
	}
	if err := fd.acquire(d); err != nil {
		return err
	}
	defer fd.unlock(d)
	for {
		if d.expired() {
			return os.ErrDeadlineExceeded
		}
		if f(uintptr(fd.sysfd)) {
			return nil
		}
		if err := d.wait(waitIO); err != nil {
			return err
		}
	}
}

// dup is File: a close-on-exec duplicate, which shares the socket's file
// status (non-blocking) as net's File does since Go 1.11.
func (fd *netFD) dup() (*os.File, error) {
	var f *os.File
	err := fd.control(func(s int) error {
		ns, err := dupCloexec(s)
		if err != nil {
			return err
		}
		f = os.NewFile(uintptr(ns), fd.fileName())
		return nil
	})
	return f, err
}

func (fd *netFD) fileName() string {
	name := fd.net + ":"
	if fd.laddr != nil {
		name += fd.laddr.String()
	}
	if fd.raddr != nil {
		name += "->" + fd.raddr.String()
	}
	return name
}
