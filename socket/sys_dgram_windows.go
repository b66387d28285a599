//go:build windows

package socket

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The datagram calls on Windows, made on the kernel's structures
// (rawAddr) as sys_linux.go makes them, so that recvfrom and sendto
// allocate nothing. A datagram longer than the buffer fills it and fails
// with WSAEMSGSIZE, as Winsock documents and net returns it: the count
// and the sender come back with that error.

func recvfrom(s int, p []byte, from *rawAddr) (int, error) {
	l := int32(sizeofSockaddrAny)
	r, _, e := syscall.SyscallN(procRecvfrom.Addr(), uintptr(s), uintptr(bufPtr(p)), uintptr(int32(len(p))), 0,
		uintptr(unsafe.Pointer(&from.raw)), uintptr(unsafe.Pointer(&l)))
	if int32(r) == -1 {
		if e = lastErrno(e); e == windows.WSAEMSGSIZE {
			from.len = uint32(l)
			return len(p), e
		}
		from.len = 0
		return 0, errnoErr(e)
	}
	from.len = uint32(l)
	return int(int32(r)), nil
}

func sendto(s int, p []byte, to *rawAddr) (int, error) {
	ptr, n := kernelAddr(to)
	r, _, e := syscall.SyscallN(procSendto.Addr(), uintptr(s), uintptr(bufPtr(p)), uintptr(int32(len(p))), 0, uintptr(ptr), uintptr(n))
	if int32(r) == -1 {
		return 0, errnoErr(lastErrno(e))
	}
	return int(int32(r)), nil
}

// recvmsg is WSARecvMsg, which golang.org/x/sys/windows finds through
// WSAIoctl: its error allocates at every wait, as the portable calls of
// Unix do (sys_portable_unix.go).
func recvmsg(s int, p, oob []byte, flags int, from *rawAddr) (n, oobn, recvflags int, err error) {
	buf := windows.WSABuf{Len: uint32(len(p)), Buf: (*byte)(bufPtr(p))}
	msg := windows.WSAMsg{
		Name:        (*syscall.RawSockaddrAny)(unsafe.Pointer(&from.raw)),
		Namelen:     int32(sizeofSockaddrAny),
		Buffers:     &buf,
		BufferCount: 1,
		Flags:       uint32(flags),
	}
	if len(oob) > 0 {
		msg.Control = windows.WSABuf{Len: uint32(len(oob)), Buf: &oob[0]}
	}
	var got uint32
	err = windows.WSARecvMsg(windows.Handle(s), &msg, &got, nil, nil)
	switch err {
	case nil:
	case windows.WSAEMSGSIZE:
		// The buffer is full and the rest lost, Winsock documents; Wine
		// 8.0 says so in neither the count nor the flags.
		got = uint32(len(p))
		msg.Flags |= windows.MSG_TRUNC
	default:
		from.len = 0
		return 0, 0, 0, err
	}
	from.len = uint32(msg.Namelen)
	return int(got), int(msg.Control.Len), int(msg.Flags), err
}

func sendmsg(s int, p, oob []byte, to *rawAddr) (n, oobn int, err error) {
	buf := windows.WSABuf{Len: uint32(len(p)), Buf: (*byte)(bufPtr(p))}
	ptr, alen := kernelAddr(to)
	msg := windows.WSAMsg{
		Name:        (*syscall.RawSockaddrAny)(ptr),
		Namelen:     int32(alen),
		Buffers:     &buf,
		BufferCount: 1,
	}
	if len(oob) > 0 {
		msg.Control = windows.WSABuf{Len: uint32(len(oob)), Buf: &oob[0]}
	}
	var sent uint32
	if err := windows.WSASendMsg(windows.Handle(s), &msg, 0, &sent, nil, nil); err != nil {
		return 0, 0, err
	}
	return int(sent), len(oob), nil
}

// kernelAddr is to as Winsock takes it: nil for none.
func kernelAddr(to *rawAddr) (unsafe.Pointer, uint32) {
	if to == nil || to.len == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&to.raw), to.len
}
