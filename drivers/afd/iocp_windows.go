//go:build windows

package afd

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The completion port every poll completes on, and the wakeup posted to
// it. A completion carries the key of the handle it came from: helperKey
// for the AFD handles, wakeKey for Wakeup's packets, which carry no
// OVERLAPPED either.
const (
	wakeKey   = 0
	helperKey = 1
)

// entry is OVERLAPPED_ENTRY. Overlapped is not a pointer here: the driver
// hands AFD a slot number plus one as the APC context, which comes back in
// this field (no Go pointer goes through the kernel as user data).
type entry struct {
	Key        uintptr
	Overlapped uintptr
	Internal   uintptr // the NTSTATUS of the request
	Bytes      uint32
}

var procGetQueuedCompletionStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetQueuedCompletionStatusEx")

func newPort() (windows.Handle, error) {
	p, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		return 0, os.NewSyscallError("CreateIoCompletionPort", err)
	}
	return p, nil
}

// dequeue takes up to len(es) completions from port, waiting at most ms
// milliseconds (windows.INFINITE: forever). A wait that times out returns
// 0 and no error. Not alertable: no APC can cut it short.
func dequeue(port windows.Handle, es []entry, ms uint32) (int, error) {
	var n uint32
	r, _, e := syscall.SyscallN(procGetQueuedCompletionStatusEx.Addr(), uintptr(port),
		uintptr(unsafe.Pointer(&es[0])), uintptr(len(es)), uintptr(unsafe.Pointer(&n)), uintptr(ms), 0)
	if r != 0 {
		return int(n), nil
	}
	if e == windows.WAIT_TIMEOUT {
		return 0, nil
	}
	if e == 0 {
		return 0, os.NewSyscallError("GetQueuedCompletionStatusEx", errors.New("failed without an error code"))
	}
	return 0, os.NewSyscallError("GetQueuedCompletionStatusEx", e)
}

// maxWaitMs caps a wait, as the stream driver and the Go runtime cap
// theirs (about 11.5 days); returning early is allowed by the contract.
const maxWaitMs = 1e9

// waitMs converts a Wait timeout to milliseconds, rounding up so that a
// positive timeout never becomes a poll nor fires early.
func waitMs(d time.Duration) uint32 {
	switch {
	case d < 0:
		return windows.INFINITE
	case d == 0:
		return 0
	case d >= maxWaitMs*time.Millisecond:
		return maxWaitMs
	}
	return uint32((d + time.Millisecond - 1) / time.Millisecond)
}

func post(port windows.Handle) error {
	if err := windows.PostQueuedCompletionStatus(port, 0, wakeKey, nil); err != nil {
		return os.NewSyscallError("PostQueuedCompletionStatus", err)
	}
	return nil
}
