//go:build unix || windows

package socket

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Two fibers bounce a byte a thousand times over a socketpair: every Read
// suspends, the fiber path end to end.
func TestFiberPingPong(t *testing.T) {
	watchdog(t, 20*time.Second)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer a.Close()
		defer b.Close()
		const rounds = 1000
		l.Defer(func(core.CallbackID) {
			buf := make([]byte, 1)
			for range rounds {
				if _, err := a.Write(buf); err != nil {
					t.Error(err)
					return
				}
				if _, err := io.ReadFull(a, buf); err != nil {
					t.Error(err)
					return
				}
			}
		})
		l.Defer(func(core.CallbackID) {
			buf := make([]byte, 1)
			for range rounds {
				if _, err := io.ReadFull(b, buf); err != nil {
					t.Error(err)
					return
				}
				if _, err := b.Write(buf); err != nil {
					t.Error(err)
					return
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// A Read from the test's goroutine, the loop not running, runs the loop
// until a timer of the loop writes.
func TestMainRead(t *testing.T) {
	watchdog(t, 20*time.Second)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer a.Close()
		defer b.Close()
		l.Delay(10*time.Millisecond, func(core.CallbackID) {
			b.Write([]byte("hi"))
		})
		buf := make([]byte, 8)
		n, err := a.Read(buf)
		if err != nil || string(buf[:n]) != "hi" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
	})
}

// "tcp" on the wildcard listens dual-stack, as net does; "tcp4" and
// "tcp6" stay in their family.
func TestListenWildcard(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		c, err := Dial(l, "tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatalf("Dial 127.0.0.1 to a %q listener on %v: %v", "tcp", ln.Addr(), err)
		}
		c.Close()
		ln4, err := Listen(l, "tcp4", ":0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln4.Close()
		if ip := ln4.Addr().(*net.TCPAddr).IP; ip.To4() == nil {
			t.Errorf("tcp4 listener on %v", ln4.Addr())
		}
		ln6, err := Listen(l, "tcp6", ":0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln6.Close()
		port6 := strconv.Itoa(ln6.Addr().(*net.TCPAddr).Port)
		if c, err := Dial(l, "tcp4", "127.0.0.1:"+port6); err == nil {
			c.Close()
			t.Errorf("Dial 127.0.0.1 to a %q listener on %v: connected, want refused (IPv6 alone)", "tcp6", ln6.Addr())
		}
		if _, err := Listen(l, "udp", ":0"); err == nil {
			t.Error("Listen udp: no error")
		}
		if _, err := Dial(l, "tcp", "[::1"); err == nil {
			t.Error("Dial of a malformed address: no error")
		}
	})
}

// A dial to the unspecified address reaches the local system, as net's
// does: on Windows, OpenBSD and AIX, whose connect refuses it, by dialing
// the loopback address of the network instead.
func TestDialWildcardIsLocal(t *testing.T) {
	for _, c := range []struct{ network, listen, host string }{
		{"tcp4", "127.0.0.1:0", ""},
		{"tcp4", "127.0.0.1:0", "0.0.0.0"},
		{"tcp6", "[::1]:0", "::"},
	} {
		t.Run(c.network+"/"+c.host, func(t *testing.T) {
			ln, err := net.Listen(c.network, c.listen)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				conn, err := Dial(l, c.network, net.JoinHostPort(c.host, port))
				if err != nil {
					t.Fatalf("Dial %s %q: %v", c.network, net.JoinHostPort(c.host, port), err)
				}
				conn.Close()
				if peer, err := ln.Accept(); err == nil {
					peer.Close()
				}
			})
		})
	}
	if got := loopbackOf("tcp6"); got != netip.IPv6Loopback() {
		t.Errorf("loopbackOf(tcp6) = %v", got)
	}
	if got := loopbackOf("udp"); got != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		t.Errorf("loopbackOf(udp) = %v", got)
	}
}

// ListenConfig.Control runs before the bind, with the network and the
// address that net's would give it, on a socket it can set options of;
// the listener then listens. An error from it is Listen's.
func TestListenConfigControl(t *testing.T) {
	type call struct{ network, address string }
	record := func(calls *[]call, fail error) func(string, string, syscall.RawConn) error {
		return func(network, address string, c syscall.RawConn) error {
			*calls = append(*calls, call{network, address})
			var oerr error
			if err := c.Control(func(fd uintptr) { _, oerr = sockoptInt(fd, syscall.SOL_SOCKET, soType) }); err != nil || oerr != nil {
				return fmt.Errorf("the socket in Control: %v, %v", err, oerr)
			}
			return fail
		}
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range []struct{ network, address string }{{"tcp4", "127.0.0.1:0"}, {"tcp", "127.0.0.1:0"}, {"tcp6", "[::1]:0"}, {"tcp", ":0"}, {"tcp4", ":0"}} {
			var ours, nets []call
			ln, err := (&ListenConfig{Control: record(&ours, nil)}).Listen(t.Context(), l, c.network, c.address)
			if err != nil {
				t.Fatalf("Listen %s %s with a Control: %v", c.network, c.address, err)
			}
			nl, err := (&net.ListenConfig{Control: record(&nets, nil)}).Listen(t.Context(), c.network, c.address)
			if err != nil {
				t.Fatal(err)
			}
			nl.Close()
			if !slices.Equal(ours, nets) {
				t.Errorf("Listen %s %s: Control saw %v, net's %v", c.network, c.address, ours, nets)
			}
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatalf("Dial the listener made with a Control: %v", err)
			}
			nc.Close()
			ln.Close()
		}
		refuse := errors.New("refused by Control")
		var calls []call
		if _, err := (&ListenConfig{Control: record(&calls, refuse)}).Listen(t.Context(), l, "tcp4", "127.0.0.1:0"); !errors.Is(err, refuse) {
			t.Errorf("Listen whose Control fails: %v, want its error", err)
		}
	})
}

// An accepted conn knows both its ends, as net's: its local address is
// the listener's (for a listener on one address), its remote one the
// dialer's local address.
func TestAcceptedAddrs(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		nc, err := net.Dial("tcp4", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.LocalAddr() == nil || c.LocalAddr().String() != ln.Addr().String() {
			t.Errorf("accepted conn's LocalAddr %v, want the listener's %v", c.LocalAddr(), ln.Addr())
		}
		if c.RemoteAddr() == nil || c.RemoteAddr().String() != nc.LocalAddr().String() {
			t.Errorf("accepted conn's RemoteAddr %v, want the dialer's %v", c.RemoteAddr(), nc.LocalAddr())
		}
	})
}
