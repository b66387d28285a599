package interop

import "syscall"

// setReceiveBuffer sets the socket fd's SO_RCVBUF, before it connects.
func setReceiveBuffer(fd uintptr, n int) error {
	return syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
