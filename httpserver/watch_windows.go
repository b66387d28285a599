//go:build windows

package httpserver

import (
	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/windows"
)

// startWatch is watch_unix.go's client-gone watch on Windows: a readable
// watcher of the loop whose callback peeks (MSG_PEEK) at the socket
// with WSARecv, made without overlapped I/O on package socket's
// non-blocking handle, so the peek never waits. End of stream or an error
// (a reset) cancels the request's context; bytes end the watch. The
// watcher is unreferenced.
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
		buf := windows.WSABuf{Len: 1, Buf: &b[0]}
		var n uint32
		flags := uint32(windows.MSG_PEEK)
		err := windows.WSARecv(windows.Handle(fd), &buf, 1, &n, &flags, nil, nil)
		if err == windows.WSAEWOULDBLOCK || err == windows.WSAEINTR {
			return
		}
		l.Cancel(id)
		if c.watch == id {
			c.watch = 0
		}
		if err != nil || n == 0 {
			rs.ctx.cancel()
		}
	})
	l.Unreference(c.watch)
}
