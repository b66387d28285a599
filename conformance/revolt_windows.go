//go:build windows

package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"testing"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// os.Interrupt is the one signal a loop can watch on Windows. Watching it
// works (the Revolt cases that only watch run); raising it does not: a
// console control event needs a console, which a test binary run by a
// CI job or under Wine may not have (GenerateConsoleCtrlEvent then fails
// with ERROR_ACCESS_DENIED), and it reaches every process attached to the
// console, the go command included. So rvCanRaise is false, and the cases
// that raise (rvRaisingCases, the signal kind of rvKinds) are left out.
var (
	rvSig1 os.Signal = os.Interrupt
	rvSig2 os.Signal = os.Interrupt
)

const rvCanRaise = false

func rvRaise(sig os.Signal) error {
	return fmt.Errorf("conformance: a test cannot raise %v on Windows", sig)
}

// rvGuardSignals keeps os.Interrupt subscribed for the rest of the case, so
// that an interrupt while the loop under test has stopped watching it
// fails that case rather than ending the test binary.
func rvGuardSignals(t *testing.T) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	t.Cleanup(func() { signal.Stop(ch) })
}

// rvRawSocketPair returns a connected pair of non-blocking loopback TCP
// sockets (Winsock has no socketpair) that the caller closes with rvClose.
func rvRawSocketPair() (a, b int, err error) {
	x, y, err := winsock.Pair()
	if err != nil {
		return -1, -1, err
	}
	return int(x), int(y), nil
}

func rvClose(fd int) error { return winsock.Close(windows.Handle(fd)) }

// rvWrite writes p to fd, making its peer readable.
func rvWrite(fd int, p []byte) error {
	n, err := winsock.Send(windows.Handle(fd), p)
	if err == nil && n < len(p) {
		err = fmt.Errorf("short write: %d of %d bytes", n, len(p))
	}
	return err
}

func rvRead(fd int, p []byte) (int, error) { return winsock.Recv(windows.Handle(fd), p) }

func rvWouldBlock(err error) bool { return errors.Is(err, windows.WSAEWOULDBLOCK) }

// rvErrNotOpen is what Winsock says of a socket handle that is closed.
var rvErrNotOpen error = windows.WSAENOTSOCK

// rvIsOpen reports whether fd is an open handle (of any kind).
func rvIsOpen(fd int) bool {
	_, err := windows.GetFileType(windows.Handle(fd))
	return !errors.Is(err, windows.ERROR_INVALID_HANDLE)
}

// faultSocketAt makes a new connected socket whose handle is fd, which the
// caller has just closed, and returns its peer. No call puts a handle at a
// chosen number, but both Windows and Wine hand a freed handle value out
// again soon (Wine the lowest free one, Windows the last freed one): a
// pair's own handles may land there, else duplicates of one end
// (WSADuplicateSocket, the supported way to a second handle of a socket)
// are made until one does, and the others are closed.
func faultSocketAt(fd int) (peer int, err error) {
	x, y, err := rvRawSocketPair()
	if err != nil {
		return -1, err
	}
	switch fd {
	case x:
		return y, nil
	case y:
		return x, nil
	}
	var misses []int
	defer func() {
		for _, m := range misses {
			rvClose(m)
		}
	}()
	for range 64 {
		d, err := rvDupSocket(x)
		if err != nil {
			rvClose(x)
			rvClose(y)
			return -1, errors.Join(errors.New("making a socket at the closed fd's handle"), err)
		}
		if d == fd {
			rvClose(x)
			return y, nil
		}
		misses = append(misses, d)
	}
	rvClose(x)
	rvClose(y)
	return -1, fmt.Errorf("handle %d was not handed out again in 64 tries (got %v)", fd, misses)
}

// rvDupSocket returns a new handle of the socket fd.
func rvDupSocket(fd int) (int, error) {
	var info windows.WSAProtocolInfo
	if err := windows.WSADuplicateSocket(windows.Handle(fd), windows.GetCurrentProcessId(), &info); err != nil {
		return -1, os.NewSyscallError("WSADuplicateSocket", err)
	}
	h, err := windows.WSASocket(-1, -1, -1, &info, 0, windows.WSA_FLAG_OVERLAPPED|windows.WSA_FLAG_NO_HANDLE_INHERIT)
	if err != nil {
		return -1, os.NewSyscallError("WSASocket", err)
	}
	return int(h), nil
}

// rvRefusedConnect starts a non-blocking TCP connect that is refused: the
// port is bound (so nobody else can take it) but not listening. The
// connecting socket is closed when the case ends. Windows retries a
// refused SYN for about two seconds before it reports the refusal; Wine
// passes on its host's at once.
func rvRefusedConnect(t *testing.T) int {
	t.Helper()
	if err := winsock.Startup(); err != nil {
		t.Fatal(err)
	}
	holder, err := windows.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	t.Cleanup(func() { _ = rvClose(int(holder)) })
	if err := windows.Bind(holder, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("cannot bind to 127.0.0.1: %v", err)
	}
	sa, err := windows.Getsockname(holder)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := windows.Socket(windows.AF_INET, windows.SOCK_STREAM, windows.IPPROTO_TCP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rvClose(int(fd)) })
	if err := winsock.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	err = windows.Connect(fd, sa)
	switch {
	case err == nil:
		t.Fatal("connecting to a bound, non-listening port succeeded")
	case errors.Is(err, windows.WSAEWOULDBLOCK), errors.Is(err, windows.WSAECONNREFUSED):
	default:
		t.Fatalf("connect: %v", err)
	}
	return int(fd)
}
