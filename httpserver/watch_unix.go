//go:build unix

package httpserver

import (
	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// startWatch watches the connection for the client's going while its
// request is served: a readable watcher of the loop whose callback peeks
// (MSG_PEEK) at the socket. End of stream or an error (a reset) cancels
// the request's context; bytes (the next request of a pipelining client)
// end the watch, since they hide any later close, as net/http's
// background read stops at the first byte. The watcher is unreferenced:
// it never keeps the loop running by itself.
func (c *conn) startWatch(rs *reqState) {
	if c.fd < 0 {
		sc, err := c.rwc.SyscallConn()
		if err != nil {
			return
		}
		sc.Control(func(fd uintptr) { c.fd = int(fd) })
		if c.fd < 0 {
			return
		}
	}
	l := c.ls.l
	c.watch = l.OnReadable(c.fd, func(id core.CallbackID, fd int) {
		var b [1]byte
		// The socket is non-blocking (package socket's), so the peek
		// never waits: AIX has no MSG_DONTWAIT to say so per call.
		n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK)
		if err == unix.EAGAIN || err == unix.EINTR {
			return
		}
		l.Cancel(id)
		if c.watch == id {
			c.watch = 0
		}
		if n <= 0 {
			rs.ctx.cancel()
		}
	})
	l.Unreference(c.watch)
}
