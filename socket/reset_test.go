package socket

import (
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A fiber's Read that waits when its peer resets the connection fails
// with ECONNRESET, as net's Read, on every driver: where the poller takes
// the socket's pending error to report it (libkqueue), the read after the
// wait finds the end of the stream and the error is the driver's.
func TestResetWhileReading(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		waiting := make(chan struct{})
		var readErr error
		l.Defer(func(core.CallbackID) {
			c, err := ln.Accept()
			ln.Close()
			if err != nil {
				readErr = err
				return
			}
			defer c.Close()
			// A Defer runs in the next tick, once the Read below waits.
			l.Defer(func(core.CallbackID) { close(waiting) })
			_, readErr = c.Read(make([]byte, 10))
		})
		done := make(chan error, 1)
		go func() {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				done <- err
				return
			}
			<-waiting
			c.(*net.TCPConn).SetLinger(0)
			done <- c.Close() // a reset
		}()
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS == "windows" && strings.HasSuffix(t.Name(), "/stream") && readErr == io.EOF {
			// Wine's WSAPoll reports the reset (POLLERR|POLLHUP) and keeps
			// nothing of it: the recv after it reads 0 and SO_ERROR says 0,
			// so the stream driver has no error to pass on. net's
			// overlapped WSARecv sees the reset; real Windows is untested.
			return
		}
		var op *net.OpError
		if !errors.Is(readErr, syscall.ECONNRESET) || !errors.As(readErr, &op) || op.Op != "read" {
			t.Fatalf("Read after the peer's reset: %v, want a read *net.OpError wrapping ECONNRESET", readErr)
		}
	})
}
