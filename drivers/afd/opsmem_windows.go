//go:build windows

package afd

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The ops live outside the Go heap, in memory of VirtualAlloc's. The
// kernel writes to an op until its poll's completion is dequeued, which
// may be after the registration is gone and, should a Close find polls
// that never complete, after the driver is gone too: memory the garbage
// collector can neither free nor reuse is the one kind a late write
// cannot corrupt. It holds no Go pointers (handles and numbers only), so
// the collector has nothing to scan in it either.

// chunk is how many ops one allocation holds (48 KiB on 64-bit Windows,
// within VirtualAlloc's 64 KiB granularity).
const chunk = 1024

func allocOps() (*[chunk]op, error) {
	addr, err := windows.VirtualAlloc(0, unsafe.Sizeof([chunk]op{}), windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
	if err != nil {
		return nil, os.NewSyscallError("VirtualAlloc", err)
	}
	// Memory Go does not manage: unsafe.Add from nil says so, where a
	// conversion of the uintptr would look to vet like a Go pointer
	// smuggled through an integer.
	return (*[chunk]op)(unsafe.Add(nil, addr)), nil
}

func freeOps(c *[chunk]op) error {
	return os.NewSyscallError("VirtualFree", windows.VirtualFree(uintptr(unsafe.Pointer(c)), 0, windows.MEM_RELEASE))
}
