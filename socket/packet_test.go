//go:build unix || windows

package socket

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// packetAddr is a local address to bind a socket of network to.
func packetAddr(t testing.TB, network string) string {
	switch network {
	case "udp4":
		return "127.0.0.1:0"
	case "udp6":
		return "[::1]:0"
	}
	return filepath.Join(t.TempDir(), "s")
}

// listenOurs binds a socket of ours on l; udp6 without an IPv6
// loopback fails the test, saying so.
func listenOurs(t testing.TB, l *core.Loop, network string) *PacketConn {
	t.Helper()
	c, err := ListenPacket(l, network, packetAddr(t, network))
	if err != nil {
		if network == "udp6" {
			t.Fatalf("ListenPacket udp6 on [::1]: %v: this test needs the IPv6 loopback address (ip -6 addr show lo)", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// netListenPacket binds a socket of package net, the peer of interop
// tests.
func netListenPacket(t testing.TB, network string) net.PacketConn {
	t.Helper()
	c, err := net.ListenPacket(network, packetAddr(t, network))
	if err != nil && netCannotUDP(err) {
		t.Skipf("package net cannot open a UDP socket here: %v (%s)", err, netCannotUDPWhy)
	}
	if err != nil {
		t.Fatalf("net.ListenPacket %s: %v", network, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// eachPacketNetwork runs f per driver and datagram network.
func eachPacketNetwork(t *testing.T, f func(t *testing.T, l *core.Loop, network string)) {
	t.Helper()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, network := range packetNetworks {
			t.Run(network, func(t *testing.T) { f(t, l, network) })
		}
	})
}

func sameAddr(a, b net.Addr) bool {
	return a != nil && b != nil && a.Network() == b.Network() && a.String() == b.String()
}

// A datagram goes from one socket of ours to another and back, from fibers
// (ReadFrom suspends until it comes) and from goroutines (the loop runs on
// another), with each flavour of the calls; the sender's address is the
// socket's local address, of net's type.
func TestPacketRoundTrip(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		a, b := listenOurs(t, l, network), listenOurs(t, l, network)
		exchange := func(t *testing.T, round int) {
			msg := []byte(fmt.Sprintf("ping %d", round))
			buf := make([]byte, 64)
			// a → b with WriteTo / ReadFrom.
			if n, err := a.WriteTo(msg, b.LocalAddr()); n != len(msg) || err != nil {
				t.Fatalf("WriteTo: %d, %v", n, err)
			}
			n, from, err := b.ReadFrom(buf)
			if err != nil || !bytes.Equal(buf[:n], msg) || !sameAddr(from, a.LocalAddr()) {
				t.Fatalf("ReadFrom: %q from %v (%T), %v; want %q from %v", buf[:n], from, from, err, msg, a.LocalAddr())
			}
			// b → a with the family's own calls.
			if network == "unixgram" {
				if _, err := b.WriteToUnix(msg, a.LocalAddr().(*net.UnixAddr)); err != nil {
					t.Fatal(err)
				}
				n, ua, err := a.ReadFromUnix(buf)
				if err != nil || !bytes.Equal(buf[:n], msg) || ua.Name != b.LocalAddr().String() || ua.Net != "unixgram" {
					t.Fatalf("ReadFromUnix: %q from %v, %v", buf[:n], ua, err)
				}
				return
			}
			to := a.LocalAddr().(*net.UDPAddr).AddrPort()
			if _, err := b.WriteToUDPAddrPort(msg, to); err != nil {
				t.Fatal(err)
			}
			n, ap, err := a.ReadFromUDPAddrPort(buf)
			if err != nil || !bytes.Equal(buf[:n], msg) || ap != b.LocalAddr().(*net.UDPAddr).AddrPort() {
				t.Fatalf("ReadFromUDPAddrPort: %q from %v, %v", buf[:n], ap, err)
			}
			if _, err := a.WriteToUDP(msg, b.LocalAddr().(*net.UDPAddr)); err != nil {
				t.Fatal(err)
			}
			n, ua, err := b.ReadFromUDP(buf)
			if err != nil || !bytes.Equal(buf[:n], msg) || ua.String() != a.LocalAddr().String() {
				t.Fatalf("ReadFromUDP: %q from %v, %v", buf[:n], ua, err)
			}
		}
		t.Run("Fibers", func(t *testing.T) {
			done := false
			// The reader waits first: its ReadFrom suspends.
			fiber(l, func() {
				buf := make([]byte, 64)
				n, from, err := b.ReadFrom(buf)
				if err != nil || string(buf[:n]) != "first" || !sameAddr(from, a.LocalAddr()) {
					t.Errorf("a suspended ReadFrom: %q from %v, %v", buf[:n], from, err)
					return
				}
				for i := range 3 {
					exchange(t, i)
				}
				done = true
			})
			l.Delay(10*time.Millisecond, func(core.CallbackID) {
				if _, err := a.WriteTo([]byte("first"), b.LocalAddr()); err != nil {
					t.Error(err)
				}
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if !done {
				t.Fatal("the fiber did not finish")
			}
		})
		t.Run("Goroutines", func(t *testing.T) {
			runLoop(t, l)
			got := make(chan error, 1)
			go func() {
				buf := make([]byte, 64)
				n, from, err := b.ReadFrom(buf)
				if err == nil && (string(buf[:n]) != "first" || !sameAddr(from, a.LocalAddr())) {
					err = fmt.Errorf("got %q from %v", buf[:n], from)
				}
				got <- err
			}()
			if err := goroutineWaits(l); err != nil { // the datagram comes while it waits
				t.Fatal(err)
			}
			if _, err := a.WriteTo([]byte("first"), b.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatalf("a blocked ReadFrom: %v", err)
			}
			for i := range 3 {
				exchange(t, i)
			}
		})
	})
}

// Dial on a datagram network gives a connected *Conn: Write sends one
// datagram, Read returns one, an empty one is 0, nil (not the end of a
// stream); its PacketConn is the same socket, whose WriteTo fails as
// net's does on a connected socket.
func TestPacketDial(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		srv := listenOurs(t, l, network)
		fiber(l, func() {
			c, err := Dial(l, network, srv.LocalAddr().String())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			if !sameAddr(c.RemoteAddr(), srv.LocalAddr()) {
				t.Errorf("RemoteAddr %v (%T), want %v", c.RemoteAddr(), c.RemoteAddr(), srv.LocalAddr())
			}
			if _, err := c.Write([]byte("hello")); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.Write(nil); err != nil {
				t.Errorf("empty Write: %v", err)
			}
			buf := make([]byte, 16)
			n, from, err := srv.ReadFrom(buf)
			if err != nil || string(buf[:n]) != "hello" {
				t.Errorf("server ReadFrom: %q, %v", buf[:n], err)
			}
			if network != "unixgram" && !sameAddr(from, c.LocalAddr()) {
				t.Errorf("sender %v, want the dialed conn's %v", from, c.LocalAddr())
			}
			if n, _, err := srv.ReadFrom(buf); n != 0 || err != nil {
				t.Errorf("the empty datagram: %d, %v", n, err)
			}
			if network == "unixgram" {
				// An unnamed unix socket cannot be answered: done.
				if from != nil {
					t.Errorf("sender of an unnamed unixgram socket: %v, want nil", from)
				}
				return
			}
			// Replies: one suspends the conn's Read, one empty.
			l.Delay(10*time.Millisecond, func(core.CallbackID) {
				srv.WriteTo([]byte("world"), from)
				srv.WriteTo(nil, from)
			})
			if n, err := c.Read(buf); err != nil || string(buf[:n]) != "world" {
				t.Errorf("conn Read: %q, %v", buf[:n], err)
			}
			if n, err := c.Read(buf); n != 0 || err != nil {
				t.Errorf("conn Read of an empty datagram: %d, %v; want 0, nil", n, err)
			}
			pc := c.PacketConn()
			if pc == nil {
				t.Error("PacketConn of a dialed datagram conn: nil")
				return
			}
			// As net: every WriteTo of a connected socket, with no address
			// too; only the Msg calls take "no address" for the peer.
			for name, err := range map[string]error{
				"WriteTo":                  second(pc.WriteTo([]byte("x"), srv.LocalAddr())),
				"WriteTo a nil *UDPAddr":   second(pc.WriteTo([]byte("x"), (*net.UDPAddr)(nil))),
				"WriteToUDP nil":           second(pc.WriteToUDP([]byte("x"), nil)),
				"WriteToUDPAddrPort, zero": second(pc.WriteToUDPAddrPort([]byte("x"), netip.AddrPort{})),
			} {
				if !errors.Is(err, net.ErrWriteToConnected) {
					t.Errorf("%s on a connected socket: %v, want net.ErrWriteToConnected", name, err)
				}
			}
			if _, _, err := pc.WriteMsgUDP([]byte("msg"), nil, nil); err != nil {
				t.Errorf("WriteMsgUDP to the peer of a connected socket: %v", err)
			} else if n, _, err := srv.ReadFrom(buf); err != nil || string(buf[:n]) != "msg" {
				t.Errorf("the peer read %q, %v; want the WriteMsgUDP's datagram", buf[:n], err)
			}
			if _, err := pc.Write([]byte("pc")); err != nil {
				t.Errorf("PacketConn's Write to the peer of a connected socket: %v", err)
			} else if n, _, err := srv.ReadFrom(buf); err != nil || string(buf[:n]) != "pc" {
				t.Errorf("the peer read %q, %v; want the PacketConn's Write", buf[:n], err)
			}
			srv.WriteTo([]byte("again"), from)
			n, ap, err := pc.ReadFromUDPAddrPort(buf)
			if err != nil || string(buf[:n]) != "again" || ap != srv.LocalAddr().(*net.UDPAddr).AddrPort() {
				t.Errorf("ReadFromUDPAddrPort on the dialed conn: %q from %v, %v", buf[:n], ap, err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		// A stream conn has no PacketConn.
		x, y := pair(t, l)
		defer x.Close()
		defer y.Close()
		if x.PacketConn() != nil {
			t.Error("PacketConn of a stream conn: not nil")
		}
	})
}

// Our sockets and package net's exchange datagrams both ways: from a
// fiber of ours to a net socket served by a goroutine, and from a net
// socket to ours read from a goroutine (the loop running on another).
func TestPacketInterop(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		ours := listenOurs(t, l, network)
		theirs := netListenPacket(t, network)
		// net echoes in upper case.
		go func() {
			buf := make([]byte, 64)
			for {
				n, from, err := theirs.ReadFrom(buf)
				if err != nil {
					return
				}
				theirs.WriteTo(bytes.ToUpper(buf[:n]), from)
			}
		}()
		fiber(l, func() {
			buf := make([]byte, 64)
			for i := range 3 {
				msg := fmt.Sprintf("ours %d", i)
				if _, err := ours.WriteTo([]byte(msg), theirs.LocalAddr()); err != nil {
					t.Error(err)
					return
				}
				n, from, err := ours.ReadFrom(buf)
				if err != nil || string(buf[:n]) != strings.ToUpper(msg) || !sameAddr(from, theirs.LocalAddr()) {
					t.Errorf("echo of net's socket: %q from %v, %v", buf[:n], from, err)
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		// net's socket to ours, read from this goroutine.
		runLoop(t, l)
		peer := netListenPacket(t, network)
		if _, err := peer.WriteTo([]byte("from net"), ours.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		ours.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, from, err := ours.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "from net" || !sameAddr(from, peer.LocalAddr()) {
			t.Fatalf("ReadFrom net's socket: %q from %v, %v", buf[:n], from, err)
		}
		if _, err := ours.WriteTo([]byte("to net"), from); err != nil {
			t.Fatal(err)
		}
		peer.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, from, err = peer.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "to net" || !sameAddr(from, ours.LocalAddr()) {
			t.Fatalf("net's ReadFrom of ours: %q from %v, %v", buf[:n], from, err)
		}
	})
}

// A datagram longer than the buffer is cut to it, as net does it, the
// rest lost (the next read gets the next datagram): on Unix the count
// and no error, on Windows the count and WSAEMSGSIZE (net's
// TestUDPReadSizeError says so); ReadMsgUDP's flags say MSG_TRUNC. An
// empty datagram reads as 0 bytes and no error. Where package net can
// open a datagram socket, a socket of net given the same datagrams reads
// the same counts and errors.
func TestPacketTruncatedAndEmpty(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		ours := listenOurs(t, l, network)
		sender := listenOurs(t, l, network)
		big := bytes.Repeat([]byte("0123456789"), 10)
		send := func(to net.Addr) {
			t.Helper()
			for _, msg := range [][]byte{big, []byte("next"), nil} {
				if _, err := sender.WriteTo(msg, to); err != nil {
					t.Fatal(err)
				}
			}
		}
		type result struct {
			n   int
			s   string
			err error
		}
		want := []result{{10, "0123456789", errTruncated}, {4, "next", nil}, {0, "", nil}}
		check := func(who string, got []result) {
			t.Helper()
			for i, w := range want {
				g := got[i]
				if g.n != w.n || g.s != w.s || (g.err == nil) != (w.err == nil) || w.err != nil && !errors.Is(g.err, w.err) {
					t.Errorf("datagram %d: %s read %d %q, %v; want %d %q, %v", i, who, g.n, g.s, g.err, w.n, w.s, w.err)
				}
			}
		}
		send(ours.LocalAddr())
		var got [3]result
		fiber(l, func() {
			buf := make([]byte, 10)
			for i := range got {
				var from net.Addr
				got[i].n, from, got[i].err = ours.ReadFrom(buf)
				got[i].s = string(buf[:got[i].n])
				if !sameAddr(from, sender.LocalAddr()) {
					t.Errorf("datagram %d: from %v, want %v", i, from, sender.LocalAddr())
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		check("ours", got[:])
		if network != "unixgram" {
			// The flags of a cut datagram.
			if _, err := sender.WriteTo(big, ours.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			fiber(l, func() {
				buf := make([]byte, 10)
				n, _, flags, addr, err := ours.ReadMsgUDP(buf, nil)
				if n != len(buf) || (err == nil) != (errTruncated == nil) || flags&msgTrunc == 0 || !sameAddr(addr, sender.LocalAddr()) {
					t.Errorf("ReadMsgUDP of a long datagram: %d, flags %#x, from %v, %v; want %d, MSG_TRUNC", n, flags, addr, err, len(buf))
				}
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("AsNet", func(t *testing.T) {
			theirs := netListenPacket(t, network)
			send(theirs.LocalAddr())
			theirs.SetReadDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 10)
			var nets [3]result
			for i := range nets {
				nets[i].n, _, nets[i].err = theirs.ReadFrom(buf)
				nets[i].s = string(buf[:max(nets[i].n, 0)])
			}
			check("net", nets[:])
		})
	})
}

// Deadlines: ReadFrom past its deadline fails at once, a future one fires
// (errors.Is os.ErrDeadlineExceeded, Timeout()), one moved while it waits
// takes effect; from a fiber and from a goroutine.
func TestPacketDeadlines(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		c := listenOurs(t, l, network)
		buf := make([]byte, 16)
		fiber(l, func() {
			c.SetReadDeadline(time.Now().Add(-time.Second))
			if _, _, err := c.ReadFrom(buf); !isTimeout(err) {
				t.Errorf("ReadFrom past its deadline: %v", err)
			}
			start := time.Now()
			c.SetReadDeadline(start.Add(30 * time.Millisecond))
			_, _, err := c.ReadFrom(buf)
			if d := time.Since(start); !isTimeout(err) || d < 30*time.Millisecond {
				t.Errorf("ReadFrom with a 30ms deadline: %v after %v", err, d)
			}
			var oe *net.OpError
			if !errors.As(err, &oe) || oe.Op != "read" {
				t.Errorf("deadline error %#v, want a read *net.OpError", err)
			}
			// Moved later while it waits, by a timer of the loop.
			start = time.Now()
			c.SetReadDeadline(start.Add(20 * time.Millisecond))
			l.Delay(5*time.Millisecond, func(core.CallbackID) { c.SetReadDeadline(start.Add(100 * time.Millisecond)) })
			_, _, err = readFromFamily(c, buf)
			if d := time.Since(start); !isTimeout(err) || d < 100*time.Millisecond {
				t.Errorf("deadline moved later: %v after %v", err, d)
			}
			c.SetReadDeadline(time.Time{})
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		runLoop(t, l)
		start := time.Now()
		c.SetReadDeadline(start.Add(30 * time.Millisecond))
		_, _, err := c.ReadFrom(buf)
		if d := time.Since(start); !isTimeout(err) || d < 30*time.Millisecond {
			t.Errorf("ReadFrom from a goroutine with a 30ms deadline: %v after %v", err, d)
		}
		c.SetDeadline(time.Now().Add(-time.Second))
		if _, err := c.WriteTo([]byte("x"), c.LocalAddr()); !isTimeout(err) {
			t.Errorf("WriteTo past its deadline: %v", err)
		}
	})
}

// readFromFamily reads with the family's own call.
func readFromFamily(c *PacketConn, b []byte) (int, any, error) {
	if c.fd.unixFamily() {
		return c.ReadFromUnix(b)
	}
	return c.ReadFromUDPAddrPort(b)
}

// Close while a fiber (or a goroutine) waits in ReadFrom wakes it with a
// read *net.OpError wrapping net.ErrClosed; so do the calls after it, and
// a second Close. The loop's Close unwinds a waiting fiber the same way
// (with core.ErrLoopClosed too).
func TestPacketCloseWhileWaiting(t *testing.T) {
	watchdog(t, time.Minute)
	eachPacketNetwork(t, func(t *testing.T, l *core.Loop, network string) {
		c := listenOurs(t, l, network)
		var rerr error
		fiber(l, func() { _, _, rerr = c.ReadFrom(make([]byte, 8)) })
		l.Delay(20*time.Millisecond, func(core.CallbackID) { c.Close() })
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if !isClosedOp(rerr, "read") {
			t.Errorf("ReadFrom woken by Close: %v", rerr)
		}
		if _, err := c.WriteTo([]byte("x"), c.LocalAddr()); !errors.Is(err, net.ErrClosed) {
			t.Errorf("WriteTo after Close: %v", err)
		}
		if _, _, err := c.ReadFrom(make([]byte, 8)); !isClosedOp(err, "read") {
			t.Errorf("ReadFrom after Close: %v", err)
		}
		if err := c.Close(); !isClosedOp(err, "close") {
			t.Errorf("second Close: %v", err)
		}
		g := listenOurs(t, l, network)
		runLoop(t, l)
		res := make(chan error, 1)
		go func() {
			_, _, err := g.ReadFrom(make([]byte, 8))
			res <- err
		}()
		if err := goroutineWaits(l); err != nil { // Close wakes it, not refuses it
			t.Fatal(err)
		}
		g.Close()
		if err := <-res; !isClosedOp(err, "read") {
			t.Errorf("goroutine's ReadFrom woken by Close: %v", err)
		}
	})
	for _, name := range drivers() {
		t.Run("LoopClose/"+name, func(t *testing.T) {
			l := newLoop(t, name)
			c := listenOurs(t, l, "udp4")
			var rerr error
			fiber(l, func() { _, _, rerr = c.ReadFrom(make([]byte, 8)) })
			l.Delay(20*time.Millisecond, func(core.CallbackID) { l.Stop() })
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if !isClosedOp(rerr, "read") || !errors.Is(rerr, core.ErrLoopClosed) {
				t.Errorf("ReadFrom when the loop closed: %v", rerr)
			}
		})
	}
}

// Thousands of fibers, each blocked in ReadFrom on a socket of its own,
// are all served by one loop once a datagram comes to each.
func TestThousandsOfFibersInReadFrom(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const n = 2000
		socks := make([]*PacketConn, n)
		for i := range socks {
			socks[i] = listenOurs(t, l, "udp4")
		}
		sender := listenOurs(t, l, "udp4")
		served := 0
		for i, c := range socks {
			fiber(l, func() {
				buf := make([]byte, 8)
				k, _, err := c.ReadFromUDPAddrPort(buf)
				if err != nil || string(buf[:k]) != fmt.Sprint(i) {
					t.Errorf("fiber %d read %q, %v", i, buf[:k], err)
				}
				served++
			})
		}
		fiber(l, func() {
			if live := l.Stats().FibersLive; live < n {
				t.Errorf("%d fibers live while the readers wait, want at least %d", live, n)
			}
			for i, c := range socks {
				if _, err := sender.WriteTo([]byte(fmt.Sprint(i)), c.LocalAddr()); err != nil {
					t.Error(err)
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if served != n {
			t.Fatalf("%d of %d readers served", served, n)
		}
		// Closed in one tick: from main, each Close would run the loop
		// once, a wait of the driver over every socket left.
		fiber(l, func() {
			for _, c := range socks {
				c.Close()
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// Wrong input fails with an error that names it, as net's: a missing
// address, an address of the other family or type, a unix address of
// another Net, the UDP calls on a unixgram socket and the other way
// round, a write without address on a socket not connected, and
// ListenPacket or Listen on a network of the other kind; where there are
// no unix sockets (Windows), every unix network.
func TestPacketBadInput(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		u4 := listenOurs(t, l, "udp4")
		v6 := &net.UDPAddr{IP: net.ParseIP("::1"), Port: 9}
		// Never made: a name for the unix addresses of the cases (and not
		// under t.TempDir, whose removal fails under Wine 8.0).
		path := filepath.Join(os.TempDir(), fmt.Sprintf("eventloop-socket-test-%d-peer", os.Getpid()))
		// Port 0 is the system's to refuse, as net leaves it: the error is
		// its call's.
		port0 := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
		cases := []badInput{
			{"port 0", second(u4.WriteTo([]byte("x"), port0)), []string{"127.0.0.1:0", "sendto"}, nil},
			{"port 0, WriteToUDP", second(u4.WriteToUDP([]byte("x"), port0)), []string{"127.0.0.1:0", "sendto"}, nil},
			{"port 0, WriteToUDPAddrPort", second(u4.WriteToUDPAddrPort([]byte("x"), port0.AddrPort())), []string{"127.0.0.1:0", "sendto"}, nil},
			{"nil *UDPAddr, WriteMsgUDP", third(u4.WriteMsgUDP([]byte("x"), nil, nil)), []string{"missing address"}, nil},
			{"port -1", second(u4.WriteTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: -1})), []string{"invalid port"}, nil},
			{"port 65536", second(u4.WriteTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1 << 16})), []string{"invalid port"}, nil},
			{"nil addr", second(u4.WriteTo([]byte("x"), nil)), []string{"invalid argument"}, syscall.EINVAL},
			{"nil *UDPAddr", second(u4.WriteToUDP([]byte("x"), nil)), []string{"missing address"}, nil},
			{"invalid AddrPort", second(u4.WriteToUDPAddrPort([]byte("x"), netip.AddrPort{})), []string{"missing address"}, nil},
			{"IPv6 to udp4", second(u4.WriteTo([]byte("x"), v6)), []string{"::1", "non-IPv4 address"}, nil},
			{"unix addr to udp", second(u4.WriteTo([]byte("x"), &net.UnixAddr{Name: path, Net: "unixgram"})), []string{path}, syscall.EINVAL},
			{"Unix read on udp", third(u4.ReadFromUnix(nil)), []string{"udp4"}, syscall.EINVAL},
			{"Write without peer", second(u4.Write([]byte("x"))), []string{"write", errDestAddrReq.Error()}, syscall.EDESTADDRREQ},
			{"ListenPacket tcp", second(ListenPacket(l, "tcp", "127.0.0.1:0")), []string{"tcp"}, nil},
			{"Listen udp", second(Listen(l, "udp", "127.0.0.1:0")), []string{"udp"}, nil},
			{"Dial unknown", second(Dial(l, "udpx", "127.0.0.1:1")), []string{"udpx"}, nil},
		}
		cases = append(cases, unixBadInput(t, l, path, v6)...) // the platform's
		for _, c := range cases {
			if c.err == nil {
				t.Errorf("%s: no error", c.name)
				continue
			}
			var oe *net.OpError
			if !errors.As(c.err, &oe) {
				t.Errorf("%s: %v is not a *net.OpError", c.name, c.err)
			} else if a, ok := oe.Addr.(*net.UDPAddr); ok && a == nil {
				t.Errorf("%s: %v names a nil *net.UDPAddr, where net's names none", c.name, c.err)
			}
			for _, w := range c.want { // in any case: Winsock's words start with a capital
				if !strings.Contains(strings.ToLower(c.err.Error()), strings.ToLower(w)) {
					t.Errorf("%s: %q does not say %q", c.name, c.err, w)
				}
			}
			if c.is != nil && !errors.Is(c.err, c.is) {
				t.Errorf("%s: %v does not wrap %v", c.name, c.err, c.is)
			}
		}
		if _, err := u4.WriteTo([]byte("x"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0xffff}); err != nil {
			t.Errorf("a datagram to port 65535: %v", err)
		}
		var nilConn *PacketConn
		if _, _, err := nilConn.ReadFrom(nil); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("ReadFrom on a nil PacketConn: %v", err)
		}
	})
}

// badInput is a case of TestPacketBadInput: the error a call returned,
// what its message says and what it wraps.
type badInput struct {
	name string
	err  error
	want []string // in the message
	is   error
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }

// The options and the raw conn reach the socket; File is a duplicate.
func TestPacketOptions(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c := listenOurs(t, l, "udp4")
		if err := c.SetReadBuffer(64 << 10); err != nil {
			t.Fatal(err)
		}
		if err := c.SetWriteBuffer(32 << 10); err != nil {
			t.Fatal(err)
		}
		rc, err := c.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var rcv, typ int
		rc.Control(func(fd uintptr) {
			rcv, _ = sockoptInt(fd, solSocket, soRcvbuf)
			typ, _ = sockoptInt(fd, solSocket, soType)
		})
		if rcv < 64<<10 || typ != sockDgram {
			t.Errorf("SO_RCVBUF %d (want at least 64 KiB), SO_TYPE %d", rcv, typ)
		}
		f, err := c.File()
		switch {
		case !haveFile:
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("File where it is refused: %v, %v; want an error matching errors.ErrUnsupported", f, err)
			}
		case err != nil:
			t.Fatal(err)
		default:
			defer f.Close()
			fc, err := net.FilePacketConn(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fc.Close()
			if !sameAddr(fc.LocalAddr(), c.LocalAddr()) {
				t.Errorf("File's socket at %v, want %v", fc.LocalAddr(), c.LocalAddr())
			}
		}
		// "udp" on the wildcard is dual-stack, as net's.
		w, err := ListenPacket(l, "udp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		port := w.LocalAddr().(*net.UDPAddr).Port
		s := listenOurs(t, l, "udp4")
		fiber(l, func() {
			if _, err := s.WriteToUDPAddrPort([]byte("v4"), netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))); err != nil {
				t.Error(err)
				return
			}
			buf := make([]byte, 8)
			n, ap, err := w.ReadFromUDPAddrPort(buf)
			if err != nil || string(buf[:n]) != "v4" || ap.Addr().Unmap() != netip.MustParseAddr("127.0.0.1") {
				t.Errorf("dual-stack ReadFromUDPAddrPort: %q from %v, %v", buf[:n], ap, err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// ReadFrom into an empty buffer does what net's does on the platform: on
// Windows it returns 0 at once and leaves the datagram where it is;
// elsewhere it takes a datagram and returns 0 (recvfrom(2) with no room).
func TestPacketReadFromEmptyBuffer(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := listenOurs(t, l, "udp4"), listenOurs(t, l, "udp4")
		fiber(l, func() {
			if _, err := b.WriteTo([]byte("kept"), a.LocalAddr()); err != nil {
				t.Error(err)
				return
			}
			n, _, err := a.ReadFrom(nil)
			if n != 0 || err != nil {
				t.Errorf("ReadFrom(nil): %d, %v; want 0, nil", n, err)
			}
			buf := make([]byte, 8)
			a.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, _, err = a.ReadFrom(buf)
			switch {
			case emptyReadFromReturns && (err != nil || string(buf[:n]) != "kept"):
				t.Errorf("ReadFrom after ReadFrom(nil): %q, %v; want the datagram, left where it was", buf[:n], err)
			case !emptyReadFromReturns && !isTimeout(err):
				t.Errorf("ReadFrom after ReadFrom(nil): %q, %v; want a timeout, the datagram taken", buf[:n], err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDialedDatagramBroadcasts: as net's, a dialed UDP socket may send
// to a broadcast address (SO_BROADCAST), and a TCP one is left as the
// system makes it.
func TestDialedDatagramBroadcasts(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		u, err := Dial(l, "udp4", "127.0.0.1:9")
		if err != nil {
			t.Fatal(err)
		}
		defer u.Close()
		if v := option(t, u, syscall.SOL_SOCKET, syscall.SO_BROADCAST); v == 0 {
			t.Error("a dialed UDP socket without SO_BROADCAST")
		}
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		c, err := Dial(l, "tcp4", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if v := option(t, c, syscall.SOL_SOCKET, syscall.SO_BROADCAST); v != 0 {
			t.Errorf("a dialed TCP socket with SO_BROADCAST %d", v)
		}
	})
}

// A datagram socket of "udp" on the wildcard address is dual-stack, and
// sends to an IPv4 address as to its v4-mapped form, as net's does: the
// datagram reaches a socket bound to that IPv4 address, which sees the
// sender as IPv4.
func TestDualStackPacketToIPv4(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rc, err := ListenPacket(l, "udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		c, err := ListenPacket(l, "udp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fiber(l, func() {
			if _, err := c.WriteTo([]byte("to v4"), rc.LocalAddr()); err != nil {
				t.Errorf("WriteTo %v: %v", rc.LocalAddr(), err)
				return
			}
			buf := make([]byte, 16)
			rc.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, from, err := rc.ReadFrom(buf)
			if err != nil || string(buf[:n]) != "to v4" {
				t.Errorf("the IPv4 socket read %q, %v", buf[:n], err)
				return
			}
			if ua := from.(*net.UDPAddr); ua.IP.To4() == nil || ua.Port != c.LocalAddr().(*net.UDPAddr).Port {
				t.Errorf("the sender seen as %v, want an IPv4 address and port %d", from, c.LocalAddr().(*net.UDPAddr).Port)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// A zone given by number or by interface name becomes the socket
// address's scope, and a scope reads back as its interface's name.
func TestZones(t *testing.T) {
	sa, err := inetSockaddr(afInet6, netip.MustParseAddrPort("[fe80::1%1]:80"))
	if err != nil {
		t.Fatal(err)
	}
	if id := sa.(*sockaddrInet6).ZoneId; id != 1 {
		t.Errorf("zone %q: scope %d, want 1", "1", id)
	}
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		t.Skipf("no interfaces to name a zone after: %v", err)
	}
	ifi := ifs[len(ifs)-1]
	if id := zoneID(ifi.Name); id != uint32(ifi.Index) {
		t.Errorf("zone %q: scope %d, want %d", ifi.Name, id, ifi.Index)
	}
	if name := zoneName(uint32(ifi.Index)); name != ifi.Name {
		t.Errorf("scope %d: zone %q, want %q", ifi.Index, name, ifi.Name)
	}
	if id := zoneID(""); id != 0 {
		t.Errorf("no zone: scope %d, want 0", id)
	}
}
