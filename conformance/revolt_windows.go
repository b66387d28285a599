//go:build windows

package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

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
func rvIsOpen(fd int) bool { return winsock.IsOpen(windows.Handle(fd)) }

// faultCloseAndReuse closes the socket fd behind the loop's back and makes
// a new connected socket whose handle is fd, and returns its peer.
//
// No call puts a handle at a chosen value, but a freed value is handed out
// again: Wine gives the lowest free one, Windows one of those freed last.
// So the listener the new socket connects to is made before the close,
// and after it the first handle made is the new socket's (winsock.Socket
// makes no other); it connects at once. Neither an accepted socket nor a
// duplicate would do on Wine: accept makes a handle to wait on first, and
// WSADuplicateSocket a handle of the process, and each takes the freed
// value until the socket has landed elsewhere. Nor may anything else make
// a handle in between: Wine gives a thread an event, kept for the thread's
// life, at its first blocking Winsock call, so the goroutine stays on a
// thread that has made its calls (the listener's) before the close. A
// socket that lands elsewhere is kept open while the next one is made, and
// a thread the runtime starts in between can still take the value: the
// error then says what holds it and matches errNumberTaken.
func faultCloseAndReuse(fd int) (peer int, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ln, sa, err := winsock.Listen(1)
	if err != nil {
		return -1, err
	}
	defer rvClose(int(ln))
	var misses []int
	defer func() {
		for _, m := range misses {
			rvClose(m)
		}
	}()
	if err := rvClose(fd); err != nil {
		return -1, fmt.Errorf("close: %w", err)
	}
	const tries = 8
	for range tries {
		h, err := winsock.Socket()
		if err != nil {
			return -1, errors.Join(errors.New("making a socket at the closed fd's handle"), err)
		}
		if int(h) != fd {
			misses = append(misses, int(h))
			continue
		}
		if err := winsock.Connect(h, sa); err != nil {
			rvClose(fd)
			return -1, err
		}
		p, err := winsock.Accept(ln)
		if err != nil {
			rvClose(fd)
			return -1, err
		}
		return int(p), nil
	}
	return -1, fmt.Errorf("handle %d was not handed out again in %d sockets (got %v); it holds: %s: %w",
		fd, tries, misses, rvHandleType(fd), errNumberTaken)
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

var procNtQueryObject = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtQueryObject")

// rvHandleType names the kind of object behind handle h ("File", "Event",
// ...), for the error that says what took a handle value.
func rvHandleType(h int) string {
	var buf [512]uint64 // aligned for OBJECT_TYPE_INFORMATION
	var n uint32
	const objectTypeInformation = 2
	r, _, _ := syscall.SyscallN(procNtQueryObject.Addr(), uintptr(h), objectTypeInformation,
		uintptr(unsafe.Pointer(&buf[0])), unsafe.Sizeof(buf), uintptr(unsafe.Pointer(&n)))
	if r != 0 {
		return fmt.Sprintf("nothing that NtQueryObject knows (NTSTATUS %#x)", uint32(r))
	}
	return (*windows.NTUnicodeString)(unsafe.Pointer(&buf[0])).String()
}
