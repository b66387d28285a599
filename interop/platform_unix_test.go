//go:build unix

package interop

import "golang.org/x/sys/unix"

// setReceiveBuffer sets the socket fd's SO_RCVBUF, before it connects: set
// after, Linux shrinks a window already scaled for a larger buffer, and
// the transfer stalls on TCP's timers (200 ms, 40 ms) however fast both
// ends are.
func setReceiveBuffer(fd uintptr, n int) error {
	return unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, n)
}
