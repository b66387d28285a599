//go:build unix

package socket

import (
	"os"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// The platform's side of the tests' helpers (helpers_windows_test.go is
// the other): Unix has socketpairs, descriptors that can be counted, and
// unix sockets.

// packetNetworks are the datagram networks every packet test runs on.
var packetNetworks = []string{"udp4", "udp6", "unixgram"}

// pair returns two connected Unix stream conns on l, closed when t ends.
func pair(t testing.TB, l *core.Loop) (*Conn, *Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	a := &Conn{fd: testFD(t, l, fds[0], unix.AF_UNIX, unix.SOCK_STREAM, "unix")}
	b := &Conn{fd: testFD(t, l, fds[1], unix.AF_UNIX, unix.SOCK_STREAM, "unix")}
	// The loop's Close closes only the conns that wait; a test that
	// leaves an idle one open is not leaking it. A second Close fails,
	// harmlessly.
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// stillOpen returns a func that reports whether the socket of c is still
// open: its number may name another file by then (the lowest free number
// goes to the next socket, or to a driver's dup), which is not it.
func stillOpen(t testing.TB, c *Conn) func() bool {
	t.Helper()
	fd := c.fd.pd.Sysfd()
	var was unix.Stat_t
	if err := unix.Fstat(fd, &was); err != nil {
		t.Fatal(err)
	}
	return func() bool {
		var now unix.Stat_t
		return unix.Fstat(fd, &now) == nil && now.Dev == was.Dev && now.Ino == was.Ino
	}
}

// fdOpen reports whether the descriptor fd is open.
func fdOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

// setLingerZero makes the close of the socket fd send a reset.
func setLingerZero(fd uintptr) error {
	return syscall.SetsockoptLinger(int(fd), syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 0})
}

// sockoptInt reads an int option of the socket fd.
func sockoptInt(fd uintptr, level, opt int) (int, error) {
	return unix.GetsockoptInt(int(fd), level, opt)
}

const soType = unix.SO_TYPE

// rawRecv reads from the socket fd once; again is true if it would block.
func rawRecv(fd uintptr, p []byte) (n int, again bool, err error) {
	n, err = unix.Read(int(fd), p)
	if err == unix.EAGAIN {
		return 0, true, nil
	}
	return max(n, 0), false, err
}

// msgTrunc is the flag of a datagram cut to the buffer.
const msgTrunc = unix.MSG_TRUNC

// errTruncated is the error of the read of a datagram cut to the buffer:
// none, as net reads it on Unix.
var errTruncated error

// netCannotUDP: package net opens datagram sockets wherever this runs.
func netCannotUDP(error) bool { return false }

const netCannotUDPWhy = ""

// haveFile: File duplicates the socket as an *os.File.
const haveFile = true

// errAddrInUse is what bind says of a busy port.
const errAddrInUse = unix.EADDRINUSE

// haveReusePort: ListenConfig.ReusePort works (see reuseport*.go).
const haveReusePort = true

// devNull opens a file that is not a socket.
func devNull() (*os.File, error) { return os.Open(os.DevNull) }
