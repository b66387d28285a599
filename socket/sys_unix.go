//go:build unix

package socket

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Unix side of the seam that the platform-neutral files (fd.go, io.go,
// dial.go, listen.go, dgram.go, ...) are written against: the constants
// and calls of golang.org/x/sys/unix under the names those files use.
// Most are aliases, so the code they compile to is the code a direct call
// would be.

type (
	sockaddr      = unix.Sockaddr
	sockaddrInet4 = unix.SockaddrInet4
	sockaddrInet6 = unix.SockaddrInet6
	sockaddrUnix  = unix.SockaddrUnix

	rawSockaddrAny   = unix.RawSockaddrAny
	rawSockaddrInet4 = unix.RawSockaddrInet4
	rawSockaddrInet6 = unix.RawSockaddrInet6
	rawSockaddrUnix  = unix.RawSockaddrUnix
)

const (
	sizeofSockaddrAny   = unix.SizeofSockaddrAny
	sizeofSockaddrInet4 = unix.SizeofSockaddrInet4
	sizeofSockaddrInet6 = unix.SizeofSockaddrInet6
)

const (
	afInet     = unix.AF_INET
	afInet6    = unix.AF_INET6
	afUnix     = unix.AF_UNIX
	afUnspec   = unix.AF_UNSPEC
	sockStream = unix.SOCK_STREAM
	sockDgram  = unix.SOCK_DGRAM

	solSocket    = unix.SOL_SOCKET
	soError      = unix.SO_ERROR
	soBroadcast  = unix.SO_BROADCAST
	soKeepAlive  = unix.SO_KEEPALIVE
	soRcvbuf     = unix.SO_RCVBUF
	soSndbuf     = unix.SO_SNDBUF
	ipprotoTCP   = unix.IPPROTO_TCP
	tcpNoDelay   = unix.TCP_NODELAY
	ipprotoIPv6  = unix.IPPROTO_IPV6
	ipv6V6Only   = unix.IPV6_V6ONLY
	shutRd       = unix.SHUT_RD
	shutWr       = unix.SHUT_WR
	listenMaxLen = unix.SOMAXCONN
)

// The errnos the package tells apart.
const (
	errAgain       = unix.EAGAIN // would block: wait for readiness
	errIntr        = unix.EINTR
	errInProgress  = unix.EINPROGRESS // a non-blocking connect goes on
	errAlready     = unix.EALREADY
	errIsConn      = unix.EISCONN
	errConnAborted = unix.ECONNABORTED
	errNoProtoOpt  = unix.ENOPROTOOPT
	errNotSupp     = unix.EOPNOTSUPP
	errInval       = unix.EINVAL
	errDestAddrReq = unix.EDESTADDRREQ
	errBadFD       = unix.EBADF // a descriptor closed behind the socket's back (fdgone.go)
	errMsgSize     = unix.EMSGSIZE
)

// emptyReadFromReturns: ReadFrom into an empty buffer makes its call (on
// Unix, net's does too: recvfrom takes a datagram away and returns 0).
const emptyReadFromReturns = false

// The names of the calls that read and write a stream, in errors.
const (
	callRead  = "read"
	callWrite = "write"
)

// sysError is an errno as the package returns it: an *os.SyscallError
// naming the call.
func sysError(call string, errno syscall.Errno) error { return os.NewSyscallError(call, errno) }

// wrapSyscall is os.NewSyscallError: nil for nil.
func wrapSyscall(call string, err error) error { return os.NewSyscallError(call, err) }

// errnoErr converts an errno to an error; Unix's are small numbers,
// which convert without allocating.
func errnoErr(e syscall.Errno) error { return e }

func sysClose(s int) error                         { return unix.Close(s) }
func sysListen(s, backlog int) error               { return unix.Listen(s, backlog) }
func sysShutdown(s, how int) error                 { return unix.Shutdown(s, how) }
func sysGetsockname(s int) (sockaddr, error)       { return unix.Getsockname(s) }
func sysGetpeername(s int) (sockaddr, error)       { return unix.Getpeername(s) }
func setsockoptInt(s, level, opt, v int) error     { return unix.SetsockoptInt(s, level, opt, v) }
func getsockoptInt(s, level, opt int) (int, error) { return unix.GetsockoptInt(s, level, opt) }

func sysBind(s int, sa sockaddr) error {
	if u := fullAbstract(sa); u != nil {
		return syscall.Bind(s, u)
	}
	return unix.Bind(s, sa)
}

func sysConnect(s int, sa sockaddr) error {
	if u := fullAbstract(sa); u != nil {
		return syscall.Connect(s, u)
	}
	return unix.Connect(s, sa)
}

// fullAbstract is sa as package syscall's address when it is a Linux abstract
// unix name that fills the whole sun_path: golang.org/x/sys/unix refuses
// it, for want of room for a NUL that such a name does not have, where
// syscall (and so net) takes it. Nil for any other address.
func fullAbstract(sa sockaddr) *syscall.SockaddrUnix {
	u, ok := sa.(*sockaddrUnix)
	if !ok || len(u.Name) != len(rawSockaddrUnix{}.Path) || (u.Name[0] != '@' && u.Name[0] != 0) {
		return nil
	}
	return &syscall.SockaddrUnix{Name: u.Name}
}

// unixSockets says whether the system has unix sockets: nil here.
func unixSockets() error { return nil }

// listenerSockopts sets what net sets on a listening inet socket:
// SO_REUSEADDR, so that a restarted server binds its port at once
// whatever connections of the old one linger in TIME_WAIT.
func listenerSockopts(s int) error {
	return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1))
}

// dgramSockopts sets what net sets on an inet datagram socket:
// SO_BROADCAST.
func dgramSockopts(s, family int) error {
	return os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_BROADCAST, 1))
}

// acceptAgain: errors of accept(2) after which net accepts again at once
// (a connection reset before it was taken).
func acceptAgain(err error) bool { return err == unix.EINTR || err == unix.ECONNABORTED }

// outOfResources: errors of accept(2) that leave the connection queued
// for want of descriptors or memory (Listener.AcceptConn backs off).
func outOfResources(err error) bool {
	return err == unix.EMFILE || err == unix.ENFILE || err == unix.ENOBUFS || err == unix.ENOMEM
}

// noIPv6: what socket(2) or bind(2) says on a system without IPv6.
func noIPv6(err error) bool {
	return isErrno(err, unix.EAFNOSUPPORT) || isErrno(err, unix.EPROTONOSUPPORT) || isErrno(err, unix.EADDRNOTAVAIL)
}

// sysPeek looks at the next byte without taking it. The socket is
// non-blocking, so the peek never waits (AIX has no MSG_DONTWAIT to say
// so per call).
func sysPeek(s int) (int, error) {
	var b [1]byte
	n, _, err := unix.Recvfrom(s, b[:], unix.MSG_PEEK)
	return n, err
}

func peekAgain(err error) bool { return err == unix.EAGAIN || err == unix.EINTR }

// connectOp names connect(2) in errors, as net's do here.
const connectOp = "connect"
