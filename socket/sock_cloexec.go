//go:build dragonfly || freebsd || linux || netbsd || openbsd

package socket

import "golang.org/x/sys/unix"

// sysSocket makes a non-blocking, close-on-exec socket in one call.
func sysSocket(family, sotype, proto int) (int, error) {
	for {
		s, err := unix.Socket(family, sotype|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, proto)
		if err != unix.EINTR {
			return s, err
		}
	}
}
