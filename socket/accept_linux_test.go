//go:build linux

package socket

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// countAccepted counts the calls that accept makes for a new conn beyond
// accept(2) itself, by name, until the test ends.
func countAccepted(t *testing.T) map[string]int {
	calls := map[string]int{}
	testHookAccepted = func(call string) { calls[call]++ }
	t.Cleanup(func() { testHookAccepted = nil })
	return calls
}

// acceptOne dials addr from the test's goroutine and accepts the conn on
// ln: the dialed conn and the accepted one.
func acceptOne(t *testing.T, l *core.Loop, ln *Listener, addr string) (*Conn, *Conn) {
	t.Helper()
	c, err := Dial(l, "tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	peer, err := ln.AcceptConn()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return c, peer
}

// On Linux an accepted TCP conn inherits TCP_NODELAY and its keep-alive
// settings from the listening socket, which Listen sets once, so accept
// makes no setsockopt of its own; and the local address of a conn
// accepted by a listener on one address is that address, so it makes no
// getsockname either. The options are net's all the same.
func TestAcceptSetsNoOptionOfItsOwn(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, step := range []struct {
			keepAlive time.Duration
			on, idle  int
		}{{0, 1, 15}, {30 * time.Second, 1, 30}, {-1, 0, 0}} {
			calls := countAccepted(t)
			lc := ListenConfig{KeepAlive: step.keepAlive}
			ln, err := lc.Listen(context.Background(), l, "tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			_, c := acceptOne(t, l, ln, ln.Addr().String())
			if len(calls) != 0 {
				t.Errorf("KeepAlive %v: accept made %v besides accept(2), want nothing", step.keepAlive, calls)
			}
			if v := option(t, c, unix.IPPROTO_TCP, unix.TCP_NODELAY); v == 0 {
				t.Errorf("KeepAlive %v: TCP_NODELAY off, want on", step.keepAlive)
			}
			on := option(t, c, unix.SOL_SOCKET, unix.SO_KEEPALIVE)
			if on != step.on {
				t.Errorf("KeepAlive %v: SO_KEEPALIVE %d, want %d", step.keepAlive, on, step.on)
			}
			if on != 0 {
				for _, o := range []int{unix.TCP_KEEPIDLE, unix.TCP_KEEPINTVL} {
					if v := option(t, c, unix.IPPROTO_TCP, o); v != step.idle {
						t.Errorf("KeepAlive %v: option %d is %d, want %d", step.keepAlive, o, v, step.idle)
					}
				}
			}
			if got, want := c.LocalAddr().String(), ln.Addr().String(); got != want {
				t.Errorf("KeepAlive %v: LocalAddr %s, want the listener's %s", step.keepAlive, got, want)
			}
			if a, ok := c.LocalAddr().(*net.TCPAddr); !ok || a == ln.Addr() || len(a.IP) != net.IPv4len {
				t.Errorf("LocalAddr %#v: want a *net.TCPAddr of its own with a 4-byte IP, as net's", c.LocalAddr())
			}
		}
	})
}

// A ListenConfig.Control that changes TCP_NODELAY or the keep-alive of the
// listening socket does not change what accepted conns get, as with net,
// which sets them on each: accept sets them itself then. A listener with a
// Control may be one that accepts conns for other addresses
// (IP_TRANSPARENT), so its conns' local addresses are asked for too.
func TestAcceptAfterControlChangedTheListener(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		calls := countAccepted(t)
		lc := ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
			var err error
			rc.Control(func(fd uintptr) {
				err = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NODELAY, 0)
				if err == nil {
					err = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 100)
				}
			})
			return err
		}}
		ln, err := lc.Listen(context.Background(), l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, c := acceptOne(t, l, ln, ln.Addr().String())
		if v := option(t, c, unix.IPPROTO_TCP, unix.TCP_NODELAY); v == 0 {
			t.Error("TCP_NODELAY off, want on, as net's accepted conns have it whatever the listener")
		}
		if v := option(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); v != 15 {
			t.Errorf("TCP_KEEPIDLE %d, want 15, net's default", v)
		}
		if calls["setsockopt"] == 0 || calls["getsockname"] != 1 {
			t.Errorf("accept made %v, want its setsockopt calls and one getsockname", calls)
		}
	})
}

// A conn accepted by a listener on the wildcard address has the address
// it was reached at, which accept asks for.
func TestAcceptOnTheWildcardAsksTheLocalAddress(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		calls := countAccepted(t)
		ln, err := Listen(l, "tcp4", "0.0.0.0:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port
		c, peer := acceptOne(t, l, ln, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if got, want := peer.LocalAddr().String(), c.RemoteAddr().String(); got != want {
			t.Errorf("LocalAddr %s, want %s (where the conn was dialed)", got, want)
		}
		if calls["getsockname"] != 1 {
			t.Errorf("accept made %v, want one getsockname", calls)
		}
	})
}
