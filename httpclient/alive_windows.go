//go:build windows

package httpclient

import "syscall"

// peek looks at what the server sent without taking it and without
// waiting (see alive_unix.go): one non-blocking WSARecv with MSG_PEEK.
func (pc *persistConn) peek() peekState {
	rc, err := pc.raw.SyscallConn()
	if err != nil {
		return peekEnd
	}
	const msgPeek = 0x2
	const wsaEWouldBlock = syscall.Errno(10035)
	state := peekEnd
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		buf := syscall.WSABuf{Len: 1, Buf: &b[0]}
		var n uint32
		flags := uint32(msgPeek)
		rerr := syscall.WSARecv(syscall.Handle(fd), &buf, 1, &n, &flags, nil, nil)
		switch {
		case rerr == wsaEWouldBlock:
			state = peekQuiet
		case rerr == nil && n > 0:
			state = peekBytes
		}
		return true
	})
	if err != nil {
		return peekEnd
	}
	return state
}
