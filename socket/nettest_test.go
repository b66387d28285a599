//go:build unix || windows

package socket

import (
	"net"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/net/nettest"
)

// TestNetConn runs golang.org/x/net/nettest.TestConn, the standard
// library's judge of a net.Conn, on TCP conns (IPv4 and IPv6) of every
// driver (Unix conns: TestNetConnUnix). nettest calls the conns from
// goroutines while a goroutine of the test runs the loop: the goroutine
// path (block) throughout.
func TestNetConn(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		t.Run("TCP", func(t *testing.T) {
			nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
				return makePipe(l, "tcp", "127.0.0.1:0")
			})
		})
		t.Run("TCP6", func(t *testing.T) {
			nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
				return makePipe(l, "tcp6", "[::1]:0")
			})
		})
	})
}

// makePipe is a nettest.MakePipe: a listener, a dialed conn and the
// accepted one, all on l.
func makePipe(l *core.Loop, network, address string) (c1, c2 net.Conn, stop func(), err error) {
	ln, err := Listen(l, network, address)
	if err != nil {
		return nil, nil, nil, err
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	c1, err = Dial(l, network, ln.Addr().String())
	if err != nil {
		return nil, nil, nil, err
	}
	a := <-ch
	if a.err != nil {
		c1.Close()
		return nil, nil, nil, a.err
	}
	return c1, a.c, func() { c1.Close(); a.c.Close() }, nil
}
