//go:build linux && !386 && !s390x

package socket

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The datagram system calls, made directly on the kernel's structures
// (rawAddr) so that they allocate nothing. linux/386 and linux/s390x
// multiplex them through socketcall(2): they take sys_portable_unix.go.

func recvfrom(s int, p []byte, from *rawAddr) (int, error) {
	from.len = unix.SizeofSockaddrAny
	n, _, e := unix.Syscall6(unix.SYS_RECVFROM, uintptr(s), uintptr(bufPtr(p)), uintptr(len(p)), 0,
		uintptr(unsafe.Pointer(&from.raw)), uintptr(unsafe.Pointer(&from.len)))
	if e != 0 {
		from.len = 0
		return 0, e
	}
	return int(n), nil
}

func sendto(s int, p []byte, to *rawAddr) (int, error) {
	ptr, n := kernelAddr(to)
	r, _, e := unix.Syscall6(unix.SYS_SENDTO, uintptr(s), uintptr(bufPtr(p)), uintptr(len(p)), 0, uintptr(ptr), uintptr(n))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func recvmsg(s int, p, oob []byte, flags int, from *rawAddr) (n, oobn, recvflags int, err error) {
	var iov unix.Iovec
	iov.Base = (*byte)(bufPtr(p))
	iov.SetLen(len(p))
	var msg unix.Msghdr
	msg.Name = (*byte)(unsafe.Pointer(&from.raw))
	msg.Namelen = unix.SizeofSockaddrAny
	msg.Iov = &iov
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := unix.Syscall(unix.SYS_RECVMSG, uintptr(s), uintptr(unsafe.Pointer(&msg)), uintptr(flags))
	if e != 0 {
		from.len = 0
		return 0, 0, 0, e
	}
	from.len = msg.Namelen
	return int(r), int(msg.Controllen), int(msg.Flags), nil
}

func sendmsg(s int, p, oob []byte, to *rawAddr) (n, oobn int, err error) {
	var iov unix.Iovec
	iov.Base = (*byte)(bufPtr(p))
	iov.SetLen(len(p))
	var msg unix.Msghdr
	ptr, alen := kernelAddr(to)
	msg.Name = (*byte)(ptr)
	msg.Namelen = alen
	msg.Iov = &iov
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(s), uintptr(unsafe.Pointer(&msg)), 0)
	if e != 0 {
		return 0, 0, e
	}
	return int(r), len(oob), nil
}

// kernelAddr is to as the kernel takes it: nil for none; an abstract unix
// name ("@name") starts with a NUL and has no NUL at its end, as
// unix(7) says.
func kernelAddr(to *rawAddr) (unsafe.Pointer, uint32) {
	if to == nil || to.len == 0 {
		return nil, 0
	}
	if to.family() == unix.AF_UNIX && to.len > pathOffset {
		r := (*unix.RawSockaddrUnix)(unsafe.Pointer(&to.raw))
		if r.Path[0] == '@' {
			r.Path[0] = 0
			if int(to.len-pathOffset) <= len(r.Path) && r.Path[to.len-pathOffset-1] == 0 {
				to.len--
			}
		}
	}
	return unsafe.Pointer(&to.raw), to.len
}
