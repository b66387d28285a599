//go:build windows

package socket

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// The Windows side of the seam (sys_unix.go is the other): Winsock's
// calls under the names the platform-neutral files use. A socket is named
// by its SOCKET handle converted to int, as the loop's fd API takes it.
// The sockets are non-blocking (FIONBIO) and waited on through the loop's
// driver, as on Unix: none of the overlapped I/O that package net does.

type (
	sockaddr      = windows.Sockaddr
	sockaddrInet4 = windows.SockaddrInet4
	sockaddrInet6 = windows.SockaddrInet6
	sockaddrUnix  = windows.SockaddrUnix

	rawSockaddrAny   = windows.RawSockaddrAny
	rawSockaddrInet4 = windows.RawSockaddrInet4
	rawSockaddrInet6 = windows.RawSockaddrInet6
	rawSockaddrUnix  = windows.RawSockaddrUnix
)

const (
	sizeofSockaddrAny   = uint32(unsafe.Sizeof(windows.RawSockaddrAny{}))
	sizeofSockaddrInet4 = uint32(unsafe.Sizeof(windows.RawSockaddrInet4{}))
	sizeofSockaddrInet6 = uint32(unsafe.Sizeof(windows.RawSockaddrInet6{}))
)

const (
	afInet     = windows.AF_INET
	afInet6    = windows.AF_INET6
	afUnix     = windows.AF_UNIX
	afUnspec   = windows.AF_UNSPEC
	sockStream = windows.SOCK_STREAM
	sockDgram  = windows.SOCK_DGRAM

	solSocket    = windows.SOL_SOCKET
	soError      = 0x1007 // SO_ERROR (winsock2.h), which golang.org/x/sys/windows lacks
	soBroadcast  = windows.SO_BROADCAST
	soKeepAlive  = windows.SO_KEEPALIVE
	soRcvbuf     = windows.SO_RCVBUF
	soSndbuf     = windows.SO_SNDBUF
	ipprotoTCP   = windows.IPPROTO_TCP
	tcpNoDelay   = windows.TCP_NODELAY
	ipprotoIPv6  = windows.IPPROTO_IPV6
	ipv6V6Only   = windows.IPV6_V6ONLY
	shutRd       = windows.SHUT_RD
	shutWr       = windows.SHUT_WR
	listenMaxLen = windows.SOMAXCONN // Winsock picks "a reasonable maximum"
)

// The errnos the package tells apart, Winsock's where Unix has its own.
const (
	errAgain = windows.WSAEWOULDBLOCK
	errIntr  = windows.WSAEINTR
	// A non-blocking connect that goes on says WSAEWOULDBLOCK, where Unix
	// says EINPROGRESS.
	errInProgress  = windows.WSAEWOULDBLOCK
	errAlready     = windows.WSAEALREADY
	errIsConn      = windows.WSAEISCONN
	errConnAborted = windows.WSAECONNABORTED
	errNoProtoOpt  = windows.WSAENOPROTOOPT
	errNotSupp     = windows.WSAEOPNOTSUPP
	errInval       = windows.WSAEINVAL
	errDestAddrReq = windows.WSAEDESTADDRREQ
	errBadFD       = windows.WSAENOTSOCK // a socket closed behind its back (fdgone.go)
	errMsgSize     = windows.WSAEMSGSIZE
)

// emptyReadFromReturns: ReadFrom into an empty buffer returns 0 at once,
// as net's on Windows: recvfrom would take a datagram away and say
// WSAEMSGSIZE.
const emptyReadFromReturns = true

// The names of the calls that read and write a stream, in errors: net's
// on Windows (its overlapped WSARecv and WSASend), so that an error reads
// the same from both, as connectOp.
const (
	callRead  = "wsarecv"
	callWrite = "wsasend"
)

// The calls golang.org/x/sys/windows lacks, or makes in a way that
// allocates an error per call that would block (it converts the errno,
// a large number, to an error each time): the fiber path allocates
// nothing on Windows either.
var (
	ws2          = windows.NewLazySystemDLL("ws2_32.dll")
	procRecv     = ws2.NewProc("recv")
	procSend     = ws2.NewProc("send")
	procRecvfrom = ws2.NewProc("recvfrom")
	procSendto   = ws2.NewProc("sendto")
	procAccept   = ws2.NewProc("accept")
)

// errFailed stands in for the errno of a call that failed without one,
// so that the failure is not taken for success.
const errFailed = windows.WSASYSCALLFAILURE

// lastErrno is the errno of a call that failed.
func lastErrno(e syscall.Errno) syscall.Errno {
	if e == 0 {
		return errFailed
	}
	return e
}

// errnoErr converts an errno to an error, without allocating for the one
// that comes back at every wait.
func errnoErr(e syscall.Errno) error {
	if e == errAgain {
		return errAgain
	}
	return e
}

// sysError is an errno as the package returns it: an *os.SyscallError
// naming the call, whose error matches the Unix errno of the same meaning
// as well as the Winsock one (errno_windows.go).
func sysError(call string, errno syscall.Errno) error {
	return os.NewSyscallError(call, wsaError{errno})
}

// wrapSyscall is sysError for an error: nil for nil; an errno inside an
// *os.SyscallError (internal/winsock's) is mapped the same way.
func wrapSyscall(call string, err error) error {
	var se *os.SyscallError
	switch e := err.(type) {
	case nil:
		return nil
	case syscall.Errno:
		return sysError(call, e)
	case *os.SyscallError:
		se = e
	default:
		return os.NewSyscallError(call, err)
	}
	if errno, ok := se.Err.(syscall.Errno); ok {
		return sysError(se.Syscall, errno)
	}
	return se
}

// sysRead is recv with its errno as a value.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.SyscallN(procRecv.Addr(), uintptr(fd), uintptr(bufPtr(p)), uintptr(int32(len(p))), 0)
	if int32(r) == -1 {
		if e == windows.WSAEMSGSIZE {
			// A datagram longer than p: p holds its start, as net's
			// reads on Windows return it (with the error).
			return len(p), e
		}
		return 0, lastErrno(e)
	}
	return int(int32(r)), 0
}

// sysWrite is send likewise.
func sysWrite(fd int, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.SyscallN(procSend.Addr(), uintptr(fd), uintptr(bufPtr(p)), uintptr(int32(len(p))), 0)
	if int32(r) == -1 {
		return 0, lastErrno(e)
	}
	return int(int32(r)), 0
}

// sysSocket makes a non-blocking socket that child processes do not
// inherit, as net makes its own (overlapped, which readiness polling does
// not mind).
func sysSocket(family, sotype, proto int) (int, error) {
	if err := winsock.Startup(); err != nil {
		return -1, err
	}
	h, err := windows.WSASocket(int32(family), int32(sotype), int32(proto), nil, 0,
		windows.WSA_FLAG_OVERLAPPED|windows.WSA_FLAG_NO_HANDLE_INHERIT)
	if err != nil {
		return -1, err
	}
	if err := winsock.SetNonblock(h, true); err != nil {
		windows.Closesocket(h)
		return -1, err
	}
	return int(h), nil
}

// sysAccept accepts a connection and makes it non-blocking and not
// inherited: Winsock documents neither as carried over from the listener.
func sysAccept(s int) (int, sockaddr, error) {
	var rsa windows.RawSockaddrAny
	l := int32(unsafe.Sizeof(rsa))
	r, _, e := syscall.SyscallN(procAccept.Addr(), uintptr(s), uintptr(unsafe.Pointer(&rsa)), uintptr(unsafe.Pointer(&l)))
	h := windows.Handle(r)
	if h == windows.InvalidHandle {
		return -1, nil, errnoErr(lastErrno(e))
	}
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		windows.Closesocket(h)
		return -1, nil, err
	}
	if err := winsock.SetNonblock(h, true); err != nil {
		windows.Closesocket(h)
		return -1, nil, err
	}
	sa, err := rsa.Sockaddr()
	if err != nil {
		windows.Closesocket(h)
		return -1, nil, err
	}
	return int(h), sa, nil
}

func sysClose(s int) error                   { return windows.Closesocket(windows.Handle(s)) }
func sysBind(s int, sa sockaddr) error       { return windows.Bind(windows.Handle(s), sa) }
func sysListen(s, backlog int) error         { return windows.Listen(windows.Handle(s), backlog) }
func sysConnect(s int, sa sockaddr) error    { return windows.Connect(windows.Handle(s), sa) }
func sysShutdown(s, how int) error           { return windows.Shutdown(windows.Handle(s), how) }
func sysGetsockname(s int) (sockaddr, error) { return windows.Getsockname(windows.Handle(s)) }
func sysGetpeername(s int) (sockaddr, error) { return windows.Getpeername(windows.Handle(s)) }

func setsockoptInt(s, level, opt, v int) error {
	return windows.SetsockoptInt(windows.Handle(s), level, opt, v)
}

func getsockoptInt(s, level, opt int) (int, error) {
	return windows.GetsockoptInt(windows.Handle(s), level, opt)
}

// errNoUnixSockets: the package offers no unix sockets on Windows. Windows
// 10 has AF_UNIX stream sockets, but Wine 8.0, under which the package's
// Windows tests run, refuses AF_UNIX (WSAEAFNOSUPPORT), so nothing here
// could show them working; and Windows has no unixgram at all.
var errNoUnixSockets = fmt.Errorf("socket: unix sockets (AF_UNIX) on windows: %w", errors.ErrUnsupported)

func unixSockets() error { return errNoUnixSockets }

// listenerSockopts sets nothing, as net sets nothing on Windows: there
// SO_REUSEADDR would let another socket take over a port in use, and
// Windows lets a restarted server bind its port by default.
func listenerSockopts(s int) error { return nil }

// dgramSockopts sets what net sets on a UDP socket on Windows: SO_BROADCAST
// (IPv4), and no reporting of ICMP port- or net-unreachable messages as
// errors of later reads (SIO_UDP_CONNRESET, SIO_UDP_NETRESET: a
// connectionless socket would otherwise fail its next ReadFrom with
// WSAECONNRESET because some earlier datagram went nowhere; Go issues 5834
// and 68614). Wine 8.0 knows no SIO_UDP_NETRESET (WSAEOPNOTSUPP), and
// reports no such ICMP message either: that refusal is let pass.
func dgramSockopts(s, family int) error {
	h := windows.Handle(s)
	if family == afInet {
		if err := windows.SetsockoptInt(h, windows.SOL_SOCKET, windows.SO_BROADCAST, 1); err != nil {
			return wrapSyscall("setsockopt", err)
		}
	}
	for _, code := range []uint32{windows.SIO_UDP_CONNRESET, windows.SIO_UDP_NETRESET} {
		var off, ret uint32
		err := windows.WSAIoctl(h, code, (*byte)(unsafe.Pointer(&off)), uint32(unsafe.Sizeof(off)), nil, 0, &ret, nil, 0)
		if err != nil && !(code == windows.SIO_UDP_NETRESET && err == windows.WSAEOPNOTSUPP) {
			return wrapSyscall("WSAIoctl", err)
		}
	}
	return nil
}

// acceptAgain: errors of accept after which net accepts again at once (a
// connection reset before it was taken).
func acceptAgain(err error) bool {
	return err == windows.WSAEINTR || err == windows.WSAECONNRESET || err == windows.WSAECONNABORTED
}

// outOfResources: errors of accept that leave the connection queued for
// want of handles or buffers (Listener.AcceptConn backs off).
func outOfResources(err error) bool { return err == windows.WSAEMFILE || err == windows.WSAENOBUFS }

// noIPv6: what socket or bind says on a system without IPv6.
func noIPv6(err error) bool {
	return isErrno(err, windows.WSAEAFNOSUPPORT) || isErrno(err, windows.WSAEPROTONOSUPPORT) || isErrno(err, windows.WSAEADDRNOTAVAIL)
}

// sysPeek looks at the next byte without taking it: WSARecv without
// overlapped I/O on the non-blocking socket, so the peek never waits.
func sysPeek(s int) (int, error) {
	var b [1]byte
	buf := windows.WSABuf{Len: 1, Buf: &b[0]}
	var n uint32
	flags := uint32(windows.MSG_PEEK)
	err := windows.WSARecv(windows.Handle(s), &buf, 1, &n, &flags, nil, nil)
	return int(n), err
}

func peekAgain(err error) bool { return err == windows.WSAEWOULDBLOCK || err == windows.WSAEINTR }

// connectOp names the connect in errors as net's do on Windows, where
// it connects with ConnectEx ("connectex: ..."), so that an error reads
// the same from both.
const connectOp = "connectex"
