//go:build windows

package conformance

import (
	"syscall"
	"unsafe"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// soakSocketpair returns a connected pair of non-blocking loopback TCP
// sockets, not inheritable (winsock.Pair).
func soakSocketpair() (a, b int, err error) { return rvRawSocketPair() }

func soakClose(fd int) error { return rvClose(fd) }

// soakRead and soakWrite report a full socket buffer (or an empty one) as
// soakErrAgain, as on Unix.
func soakRead(fd int, p []byte) (int, error) {
	n, err := winsock.Recv(windows.Handle(fd), p)
	if rvWouldBlock(err) {
		return 0, soakErrAgain
	}
	return n, err
}

func soakWrite(fd int, p []byte) (int, error) {
	n, err := winsock.Send(windows.Handle(fd), p)
	if rvWouldBlock(err) {
		return 0, soakErrAgain
	}
	return n, err
}

var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetHandleInformation")

// soakOpenFDs counts the process's open handles below soakHandleScan that
// are of the kinds a loop and its drivers make: files (sockets, AFD
// handles) and I/O completion ports. The other kinds come and go with the
// runtime's threads and are no loop's: each thread the Go runtime starts
// brings a thread handle, events and a timer, and Wine gives a thread an
// event of its own at its first blocking Winsock call, kept for the
// thread's life. GetProcessHandleCount would be one call, but it counts
// those too (and Wine 8.0 answers it with 0); handle values are multiples
// of four and new handles take low free values, so a leak shows well
// below the bound.
func soakOpenFDs() (int, error) {
	n := 0
	for h := uintptr(4); h < soakHandleScan; h += 4 {
		var flags uint32
		if r, _, _ := syscall.SyscallN(procGetHandleInformation.Addr(), h, uintptr(unsafe.Pointer(&flags))); r == 0 {
			continue
		}
		if t := rvHandleType(int(h)); t == "File" || t == "IoCompletion" {
			n++
		}
	}
	return n, nil
}

const soakHandleScan = 1 << 16
