//go:build unix

package httpclient_test

import "golang.org/x/sys/unix"

// countFDs counts the open descriptors below 4096.
func countFDs() (n int, ok bool) {
	for fd := range 4096 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			n++
		}
	}
	return n, true
}
