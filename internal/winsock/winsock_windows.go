//go:build windows

package winsock

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	ws2         = windows.NewLazySystemDLL("ws2_32.dll")
	procWSAPoll = ws2.NewProc("WSAPoll")
	procAccept  = ws2.NewProc("accept")
	procIoctl   = ws2.NewProc("ioctlsocket")
	procRecv    = ws2.NewProc("recv")
	procSend    = ws2.NewProc("send")
	procSockNm  = ws2.NewProc("getsockname")
	procPeerNm  = ws2.NewProc("getpeername")
)

// The WSAPOLLFD flags (winsock2.h). WSAPoll refuses a request with any
// other bit in Events (WSAEINVAL); POLLHUP, POLLERR and POLLNVAL come back
// in Revents unasked.
const (
	POLLRDNORM = 0x0100
	POLLRDBAND = 0x0200
	POLLIN     = POLLRDNORM | POLLRDBAND
	POLLWRNORM = 0x0010
	POLLOUT    = POLLWRNORM
	POLLERR    = 0x0001
	POLLHUP    = 0x0002
	POLLNVAL   = 0x0004
)

const (
	soType  = 0x1008     // SO_TYPE
	fionbio = 0x8004667e // FIONBIO: _IOW('f', 126, u_long)
)

// PollFd is WSAPOLLFD. A negative Fd (INVALID_SOCKET, all ones) is
// ignored by WSAPoll, as a negative fd is by poll(2).
type PollFd struct {
	Fd      windows.Handle
	Events  int16
	Revents int16
}

// Ignored is the Fd that WSAPoll skips.
const Ignored = windows.InvalidHandle

// Startup initializes Winsock for the process once; every function of
// the package that needs it calls it. The net package does the same in its
// own init, and WSAStartup counts its callers, so the two never clash.
var Startup = sync.OnceValue(func() error {
	var d windows.WSAData
	if err := windows.WSAStartup(uint32(0x202), &d); err != nil {
		return os.NewSyscallError("WSAStartup", err)
	}
	return nil
})

// Poll is WSAPoll over fds with a timeout in milliseconds (-1: forever).
// It does not allocate.
func Poll(fds []PollFd, timeoutMs int) (int, error) {
	if err := Startup(); err != nil {
		return 0, err
	}
	var p *PollFd
	if len(fds) > 0 {
		p = &fds[0]
	}
	r, _, e := syscall.SyscallN(procWSAPoll.Addr(), uintptr(unsafe.Pointer(p)), uintptr(len(fds)), uintptr(int32(timeoutMs)))
	if int32(r) == -1 {
		return 0, os.NewSyscallError("WSAPoll", errnoErr(e))
	}
	return int(int32(r)), nil
}

// Type returns the socket's SO_TYPE (windows.SOCK_STREAM, ...): an error
// matching windows.WSAENOTSOCK says that h is not a socket, or no longer
// one.
func Type(h windows.Handle) (int, error) {
	if err := Startup(); err != nil {
		return 0, err
	}
	t, err := windows.GetsockoptInt(h, windows.SOL_SOCKET, soType)
	if err != nil {
		return 0, os.NewSyscallError("getsockopt", err)
	}
	return t, nil
}

// CheckSocket refuses, with an error saying which, a handle that the
// Windows drivers cannot watch: one that is not a socket (a file, a pipe,
// a console: WSAPoll and AFD watch sockets only), which fails matching
// errors.ErrUnsupported, or one that is not open at all, which fails with
// getsockopt's WSAENOTSOCK. getsockopt(SO_TYPE) fails with WSAENOTSOCK for
// both; IsOpen tells them apart.
func CheckSocket(h windows.Handle) error {
	_, err := Type(h)
	if err == nil {
		return nil
	}
	if IsOpen(h) {
		return fmt.Errorf("handle is not a socket, and the Windows drivers watch sockets only (%w): %w", err, errors.ErrUnsupported)
	}
	return err
}

// IsOpen reports whether h is an open handle, of any kind: GetFileType
// fails with ERROR_INVALID_HANDLE only for one that is not.
func IsOpen(h windows.Handle) bool {
	_, err := windows.GetFileType(h)
	return !errors.Is(err, windows.ERROR_INVALID_HANDLE)
}

// BaseHandle returns the handle of the base provider's socket behind h:
// the one AFD knows. It is h itself unless a layered service provider
// stands in between, which getsockopt(SO_PROTOCOL_INFOW) tells (a chain
// of length 1 is a base protocol); only then is SIO_BASE_HANDLE asked,
// through WSAIoctl, which under Wine leaves each thread it is first called
// on an event handle for the thread's life.
func BaseHandle(h windows.Handle) (windows.Handle, error) {
	const soProtocolInfoW = 0x2005
	var info windows.WSAProtocolInfo
	n := int32(unsafe.Sizeof(info))
	if err := windows.Getsockopt(h, windows.SOL_SOCKET, soProtocolInfoW, (*byte)(unsafe.Pointer(&info)), &n); err != nil {
		return 0, os.NewSyscallError("getsockopt", err)
	}
	if info.ProtocolChain.ChainLen == 1 {
		return h, nil
	}
	const sioBaseHandle = 0x48000022 // _WSAIOR(IOC_WS2, 34)
	var base windows.Handle
	var got uint32
	err := windows.WSAIoctl(h, sioBaseHandle, nil, 0, (*byte)(unsafe.Pointer(&base)), uint32(unsafe.Sizeof(base)), &got, nil, 0)
	if err != nil {
		return 0, os.NewSyscallError("WSAIoctl", err)
	}
	return base, nil
}

// Name fills sa with the socket's local address (peer false) or the
// address of its peer, without allocating, and returns its length. An
// unbound socket fails with WSAEINVAL, an unconnected one (peer) with
// WSAENOTCONN.
func Name(h windows.Handle, peer bool, sa *windows.RawSockaddrAny) (int, error) {
	proc, call := procSockNm, "getsockname"
	if peer {
		proc, call = procPeerNm, "getpeername"
	}
	n := int32(unsafe.Sizeof(*sa))
	r, _, e := syscall.SyscallN(proc.Addr(), uintptr(h), uintptr(unsafe.Pointer(sa)), uintptr(unsafe.Pointer(&n)))
	if int32(r) != 0 {
		return 0, os.NewSyscallError(call, errnoErr(e))
	}
	return int(n), nil
}

// SetNonblock puts h into (or out of) non-blocking mode.
func SetNonblock(h windows.Handle, on bool) error {
	var arg uint32
	if on {
		arg = 1
	}
	r, _, e := syscall.SyscallN(procIoctl.Addr(), uintptr(h), fionbio, uintptr(unsafe.Pointer(&arg)))
	if int32(r) != 0 {
		return os.NewSyscallError("ioctlsocket", errnoErr(e))
	}
	return nil
}

// Recv reads from h. A non-blocking socket with nothing to read returns an
// error matching windows.WSAEWOULDBLOCK; 0 and nil mean end of stream.
func Recv(h windows.Handle, p []byte) (int, error) {
	var b *byte
	if len(p) > 0 {
		b = &p[0]
	}
	r, _, e := syscall.SyscallN(procRecv.Addr(), uintptr(h), uintptr(unsafe.Pointer(b)), uintptr(int32(len(p))), 0)
	if int32(r) == -1 {
		return 0, os.NewSyscallError("recv", errnoErr(e))
	}
	return int(int32(r)), nil
}

// Send writes to h; a full non-blocking socket returns an error matching
// windows.WSAEWOULDBLOCK.
func Send(h windows.Handle, p []byte) (int, error) { return SendFlags(h, p, 0) }

// MSG_OOB is send's flag for urgent (out-of-band) data.
const MSG_OOB = 0x1

// SendFlags is send with flags (MSG_OOB).
func SendFlags(h windows.Handle, p []byte, flags int) (int, error) {
	var b *byte
	if len(p) > 0 {
		b = &p[0]
	}
	r, _, e := syscall.SyscallN(procSend.Addr(), uintptr(h), uintptr(unsafe.Pointer(b)), uintptr(int32(len(p))), uintptr(flags))
	if int32(r) == -1 {
		return 0, os.NewSyscallError("send", errnoErr(e))
	}
	return int(int32(r)), nil
}

// Close closes a socket.
func Close(h windows.Handle) error {
	if err := windows.Closesocket(h); err != nil {
		return os.NewSyscallError("closesocket", err)
	}
	return nil
}

// Pair returns a connected pair of non-blocking TCP sockets over the
// loopback interface, not inherited by child processes, with Nagle's
// algorithm off: a one-byte write (a wakeup, a test's "x") is sent at once
// instead of waiting for the ACK of the previous one, which delayed ACKs
// hold back for up to 200 ms. The listener is bound to an ephemeral port
// on 127.0.0.1, listens with a backlog of one and is closed as soon as
// the pair is made; another local process could still connect to it
// first, so a connection whose peer is not a is closed and the next one
// taken.
func Pair() (a, b windows.Handle, err error) {
	ln, sa, err := Listen(1)
	if err != nil {
		return 0, 0, err
	}
	defer windows.Closesocket(ln)
	if a, err = Dial(sa); err != nil {
		return 0, 0, err
	}
	local, err := windows.Getsockname(a)
	if err != nil {
		windows.Closesocket(a)
		return 0, 0, os.NewSyscallError("getsockname", err)
	}
	for range pairTries {
		if b, err = Accept(ln); err != nil {
			break
		}
		if peer, perr := windows.Getpeername(b); perr == nil && sameInet4(peer, local) {
			return a, b, nil
		}
		windows.Closesocket(b)
		err = errors.New("winsock: a socket pair's listener was connected to by another socket")
	}
	windows.Closesocket(a)
	return 0, 0, err
}

// pairTries bounds the connections Pair takes from its listener looking
// for its own.
const pairTries = 3

func sameInet4(x, y windows.Sockaddr) bool {
	p, ok1 := x.(*windows.SockaddrInet4)
	q, ok2 := y.(*windows.SockaddrInet4)
	return ok1 && ok2 && p.Port == q.Port && p.Addr == q.Addr
}

// Listen returns a blocking TCP socket listening on an ephemeral port of
// 127.0.0.1 with the given backlog, not inherited, and its address.
func Listen(backlog int) (windows.Handle, windows.Sockaddr, error) {
	if err := Startup(); err != nil {
		return 0, nil, err
	}
	ln, err := newSocket()
	if err != nil {
		return 0, nil, err
	}
	if err := windows.Bind(ln, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		windows.Closesocket(ln)
		return 0, nil, os.NewSyscallError("bind", err)
	}
	if err := windows.Listen(ln, backlog); err != nil {
		windows.Closesocket(ln)
		return 0, nil, os.NewSyscallError("listen", err)
	}
	sa, err := windows.Getsockname(ln)
	if err != nil {
		windows.Closesocket(ln)
		return 0, nil, os.NewSyscallError("getsockname", err)
	}
	return ln, sa, nil
}

// Dial connects a new TCP socket to sa (Socket, then Connect).
func Dial(sa windows.Sockaddr) (windows.Handle, error) {
	h, err := Socket()
	if err != nil {
		return 0, err
	}
	if err := Connect(h, sa); err != nil {
		windows.Closesocket(h)
		return 0, err
	}
	return h, nil
}

// Socket returns a new, unconnected TCP socket, not inherited. It makes one
// handle, the socket's, and nothing else: Wine hands it the lowest free
// handle value.
func Socket() (windows.Handle, error) {
	if err := Startup(); err != nil {
		return 0, err
	}
	return newSocket()
}

// Connect connects the blocking socket h to sa, waiting for the
// connection, and then makes it as Pair's are: non-blocking, Nagle off.
func Connect(h windows.Handle, sa windows.Sockaddr) error {
	if err := windows.Connect(h, sa); err != nil {
		return os.NewSyscallError("connect", err)
	}
	return tune(h)
}

// Accept takes a connection from the listener ln, waiting for one if ln is
// blocking, and returns it as Pair's are. It makes one handle, the new
// socket's.
func Accept(ln windows.Handle) (windows.Handle, error) {
	r, _, e := syscall.SyscallN(procAccept.Addr(), uintptr(ln), 0, 0)
	h := windows.Handle(r)
	if h == windows.InvalidHandle {
		return 0, os.NewSyscallError("accept", errnoErr(e))
	}
	// Winsock does not document the listener's WSA_FLAG_NO_HANDLE_INHERIT
	// as carried over to the accepted socket (package socket's accept
	// clears the flag too).
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0); err != nil {
		windows.Closesocket(h)
		return 0, os.NewSyscallError("SetHandleInformation", err)
	}
	if err := tune(h); err != nil {
		windows.Closesocket(h)
		return 0, err
	}
	return h, nil
}

// tune makes h non-blocking, with Nagle's algorithm off.
func tune(h windows.Handle) error {
	if err := SetNonblock(h, true); err != nil {
		return err
	}
	if err := windows.SetsockoptInt(h, windows.IPPROTO_TCP, windows.TCP_NODELAY, 1); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return nil
}

func newSocket() (windows.Handle, error) {
	h, err := windows.WSASocket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP, nil, 0,
		windows.WSA_FLAG_OVERLAPPED|windows.WSA_FLAG_NO_HANDLE_INHERIT)
	if err != nil {
		return 0, os.NewSyscallError("WSASocket", err)
	}
	return h, nil
}

// errnoErr keeps a zero errno from posing as success: a failed call whose
// last error reads 0 still fails.
func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return errUnknown
	}
	return e
}

var errUnknown = errors.New("failed without an error code")
