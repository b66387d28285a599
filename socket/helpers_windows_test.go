//go:build windows

package socket

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// The Windows side of the tests' helpers (helpers_unix_test.go is the
// other): loopback TCP pairs where Unix has socketpairs, and no unix
// sockets (sys_windows.go says why).

// packetNetworks are the datagram networks every packet test runs on.
var packetNetworks = []string{"udp4", "udp6"}

// pair returns two connected TCP conns on l over the loopback interface,
// Nagle's algorithm off (internal/winsock's Pair), closed when t ends.
func pair(t testing.TB, l *core.Loop) (*Conn, *Conn) {
	t.Helper()
	a, b, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	ca := &Conn{fd: testFD(t, l, int(a), afInet, sockStream, "tcp")}
	cb := &Conn{fd: testFD(t, l, int(b), afInet, sockStream, "tcp")}
	// The loop's Close closes only the conns that wait; a test that
	// leaves an idle one open is not leaking it. A second Close fails,
	// harmlessly.
	t.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

// fdOpen reports whether the socket handle fd is open.
// stillOpen returns a func that reports whether the socket of c is still
// open.
func stillOpen(t testing.TB, c *Conn) func() bool {
	fd := c.fd.pd.Sysfd()
	return func() bool { return fdOpen(fd) }
}

func fdOpen(fd int) bool {
	_, err := winsock.Type(windows.Handle(fd))
	return err == nil
}

// setLingerZero makes the close of the socket fd send a reset.
func setLingerZero(fd uintptr) error {
	return windows.SetsockoptLinger(windows.Handle(fd), windows.SOL_SOCKET, windows.SO_LINGER, &windows.Linger{Onoff: 1, Linger: 0})
}

// sockoptInt reads an int option of the socket fd.
func sockoptInt(fd uintptr, level, opt int) (int, error) {
	return windows.GetsockoptInt(windows.Handle(fd), level, opt)
}

const soType = 0x1008 // SO_TYPE

// rawRecv reads from the socket fd once; again is true if it would block.
func rawRecv(fd uintptr, p []byte) (n int, again bool, err error) {
	n, err = winsock.Recv(windows.Handle(fd), p)
	if errors.Is(err, windows.WSAEWOULDBLOCK) {
		return 0, true, nil
	}
	return n, false, err
}

// msgTrunc is the flag of a datagram cut to the buffer.
const msgTrunc = windows.MSG_TRUNC

// errTruncated is the error of the read of a datagram cut to the buffer:
// Winsock fails it with WSAEMSGSIZE, and net returns that error with the
// count (its TestUDPReadSizeError says so); so does this package.
var errTruncated error = windows.WSAEMSGSIZE

// netCannotUDP: package net fails to open a UDP socket under Wine 8.0: it
// turns SIO_UDP_NETRESET off on every UDP socket and fails when Wine
// refuses that ioctl (WSAEOPNOTSUPP). The tests that need a socket of
// net as the peer say so and go no further there; ours let that refusal
// pass (dgramSockopts).
func netCannotUDP(err error) bool {
	return errors.Is(err, windows.WSAEOPNOTSUPP) && strings.Contains(err.Error(), "wsaioctl")
}

const netCannotUDPWhy = "Wine refuses SIO_UDP_NETRESET, which net sets on every UDP socket"

// haveFile: File is refused on Windows (file_windows.go says why).
const haveFile = false

// errAddrInUse is what bind says of a busy port.
const errAddrInUse = windows.WSAEADDRINUSE

// haveReusePort: Windows has no SO_REUSEPORT (reuseport_windows.go).
const haveReusePort = false

// devNull opens a file that is not a socket.
func devNull() (*os.File, error) { return os.Open(os.DevNull) }
