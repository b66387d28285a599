//go:build linux && !386 && !s390x

package socket

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// acceptFrom accepts a connection that is non-blocking and close-on-exec
// from the start, with accept4 on the kernel's own structure, which it
// leaves in from: unix.Accept4 makes three objects a connection (the raw
// address, its length and the Sockaddr). linux/386 and linux/s390x
// multiplex accept4 through socketcall(2): they take accept_other.go.
func acceptFrom(s int, from *rawAddr) (int, error) {
	from.len = unix.SizeofSockaddrAny
	ns, _, e := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(s), uintptr(unsafe.Pointer(&from.raw)),
		uintptr(unsafe.Pointer(&from.len)), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
	if e != 0 {
		from.len = 0
		return -1, e
	}
	return int(ns), nil
}
