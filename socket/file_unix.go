//go:build unix

package socket

import (
	"net"
	"os"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// fileFD adopts a duplicate of f's socket (FileConn, FileListener). The
// duplicate is taken through f's RawConn, which leaves f's mode alone.
func fileFD(l *core.Loop, f *os.File, listener bool) (*netFD, error) {
	opErr := func(err error) error {
		return &net.OpError{Op: "file", Net: "file+net", Source: nil, Addr: fileAddr(f.Name()), Err: err}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, opErr(err)
	}
	ns := -1
	var derr error
	if err := rc.Control(func(s uintptr) { ns, derr = dupCloexec(int(s)) }); err != nil {
		return nil, opErr(err)
	}
	if derr != nil {
		return nil, opErr(derr)
	}
	fail := func(err error) (*netFD, error) {
		unix.Close(ns)
		return nil, opErr(err)
	}
	if err := unix.SetNonblock(ns, true); err != nil {
		return fail(os.NewSyscallError("setnonblock", err))
	}
	sotype, err := unix.GetsockoptInt(ns, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return fail(os.NewSyscallError("getsockopt", err))
	}
	if sotype != unix.SOCK_STREAM {
		return fail(os.NewSyscallError("getsockopt", unix.EPROTONOSUPPORT))
	}
	lsa, err := unix.Getsockname(ns)
	if err != nil {
		return fail(os.NewSyscallError("getsockname", err))
	}
	var family int
	var network string
	switch lsa.(type) {
	case *unix.SockaddrInet4:
		family, network = unix.AF_INET, "tcp"
	case *unix.SockaddrInet6:
		family, network = unix.AF_INET6, "tcp"
	case *unix.SockaddrUnix:
		family, network = unix.AF_UNIX, "unix"
	default:
		return fail(os.NewSyscallError("getsockname", unix.EAFNOSUPPORT))
	}
	fd, err := newFD(l, ns, family, unix.SOCK_STREAM, network)
	if err != nil {
		return fail(err)
	}
	fd.laddr = addrOf(lsa, unix.SOCK_STREAM)
	if listener {
		fd.ln = &listenState{}
		return fd, nil
	}
	if rsa, err := unix.Getpeername(ns); err == nil {
		fd.raddr = addrOf(rsa, unix.SOCK_STREAM)
	}
	return fd, nil
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
