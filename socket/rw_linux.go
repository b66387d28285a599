//go:build linux

package socket

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// sysRead is read(2) with its errno as a value, which compares without
// the interface comparison an error would need.
//
// It is a raw system call, without the scheduler's entersyscall and
// exitsyscall around it, as the runtime makes its own calls that cannot
// block: every fd of this package is non-blocking, so read(2) and
// write(2) return at once. The ordinary call tells the scheduler that the
// thread may be gone for long, and when a call on a loaded machine takes
// more than sysmon's tick (20 µs and up) the loop's P is handed to
// another thread, which wakes to find nothing to do (a futex wake and
// sleep each time) while the loop's thread waits to get a P back. Raw
// calls took an echo round trip from 2 722 to 2 036 instructions
// (callgrind, 16 connections). They are told to the race detector as
// x/sys's Read and Write tell it.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(bufPtr(p)), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	raceReadDone(p, int(r))
	return int(r), 0
}

// sysWrite is write(2) likewise.
func sysWrite(fd int, p []byte) (int, syscall.Errno) {
	raceWriteStart()
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(bufPtr(p)), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	raceWriteDone(p, int(r))
	return int(r), 0
}
