//go:build dragonfly || freebsd || linux

package socket

import "golang.org/x/sys/unix"

// sysAccept accepts a connection that is non-blocking and close-on-exec
// from the start (accept4).
func sysAccept(s int) (int, unix.Sockaddr, error) {
	return unix.Accept4(s, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
}
