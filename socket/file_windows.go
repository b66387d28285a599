//go:build windows

package socket

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// fileFD adopts a duplicate of f's socket (FileConn, FileListener), made
// as net makes it on Windows: WSADuplicateSocket for this process and a
// socket from the protocol information it fills in. The duplicate is put
// in non-blocking mode, which Winsock keeps per socket, not per handle:
// f's socket is non-blocking afterwards too, as on Unix, where the two
// share their file status.
func fileFD(l *core.Loop, f *os.File, listener bool) (*netFD, error) {
	opErr := func(err error) error {
		return &net.OpError{Op: "file", Net: "file+net", Source: nil, Addr: fileAddr(f.Name()), Err: err}
	}
	// As net: Fd takes f's handle out of the completion port of Go's
	// poller, if it is in one; a duplicate of a socket in a completion
	// port is not safe to use.
	f.Fd()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, opErr(err)
	}
	ns := windows.InvalidHandle
	var derr error
	if err := rc.Control(func(s uintptr) { ns, derr = dupSocket(windows.Handle(s)) }); err != nil {
		return nil, opErr(err)
	}
	if derr != nil {
		return nil, opErr(derr)
	}
	fail := func(err error) (*netFD, error) {
		windows.Closesocket(ns)
		return nil, opErr(err)
	}
	if err := winsock.SetNonblock(ns, true); err != nil {
		return fail(wrapSyscall("ioctlsocket", err))
	}
	sotype, err := winsock.Type(ns)
	if err != nil {
		return fail(wrapSyscall("getsockopt", err))
	}
	if sotype != sockStream {
		return fail(sysError("getsockopt", windows.WSAEPROTONOSUPPORT))
	}
	s := int(ns)
	lsa, err := sysGetsockname(s)
	if err != nil {
		return fail(wrapSyscall("getsockname", err))
	}
	var family int
	switch lsa.(type) {
	case *sockaddrInet4:
		family = afInet
	case *sockaddrInet6:
		family = afInet6
	default:
		return fail(sysError("getsockname", windows.WSAEAFNOSUPPORT))
	}
	fd, err := newFD(l, s, family, sockStream, "tcp")
	if err != nil {
		return fail(err)
	}
	fd.laddr = addrOf(lsa, sockStream)
	if listener {
		fd.ln = &listenState{}
		return fd, nil
	}
	if rsa, err := sysGetpeername(s); err == nil {
		fd.raddr = addrOf(rsa, sockStream)
	}
	return fd, nil
}

// dupSocket duplicates the socket h within this process, not inherited.
func dupSocket(h windows.Handle) (windows.Handle, error) {
	var info windows.WSAProtocolInfo
	if err := windows.WSADuplicateSocket(h, uint32(os.Getpid()), &info); err != nil {
		return windows.InvalidHandle, wrapSyscall("WSADuplicateSocket", err)
	}
	ns, err := windows.WSASocket(-1, -1, -1, &info, 0, windows.WSA_FLAG_OVERLAPPED|windows.WSA_FLAG_NO_HANDLE_INHERIT)
	if err != nil {
		return windows.InvalidHandle, wrapSyscall("WSASocket", err)
	}
	return ns, nil
}

// errNoFile: File cannot be offered on Windows. Winsock can duplicate the
// socket, but an *os.File made outside package net closes its handle with
// CloseHandle, which Winsock forbids for a socket: net's own File gets a
// file that calls closesocket through a hook of package os that the linker
// keeps from every other package. SyscallConn gives the handle, and
// windows.WSADuplicateSocket a duplicate the caller closes itself.
var errNoFile = fmt.Errorf("socket: File on windows (its *os.File would close the socket with CloseHandle): %w", errors.ErrUnsupported)

func (fd *netFD) dup() (*os.File, error) { return nil, errNoFile }
