package interop

import "syscall"

// countFDs: Windows cannot list the sockets of a process (its handle
// count moves with the runtime's own handles), so descriptors are not
// counted there.
func countFDs() (n int, ok bool) { return 0, false }

// setReceiveBuffer sets the socket fd's SO_RCVBUF, before it connects.
func setReceiveBuffer(fd uintptr, n int) error {
	return syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
