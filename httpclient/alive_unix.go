//go:build unix

package httpclient

import "syscall"

// peek looks at what the server sent without taking it and without
// waiting: nothing yet, bytes, or the end of the stream (or an error).
func (pc *persistConn) peek() peekState {
	rc, err := pc.raw.SyscallConn()
	if err != nil {
		return peekEnd
	}
	state := peekEnd
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		switch {
		case rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK:
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
