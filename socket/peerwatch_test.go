//go:build unix || windows

package socket

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// tcpPeers returns a conn of ours, accepted on l, and its peer, a conn of
// package net's; the test's goroutine runs the loop for the accept.
func tcpPeers(t *testing.T, l *core.Loop) (*Conn, *net.TCPConn) {
	t.Helper()
	ln, err := Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
		}
		dialed <- c
	}()
	c, err := ln.Accept()
	peer := <-dialed
	if err != nil || peer == nil {
		t.Fatalf("accept: %v", err)
	}
	t.Cleanup(func() { peer.Close(); c.Close() })
	return c.(*Conn), peer.(*net.TCPConn)
}

// onLoop runs fn on l, which another goroutine runs.
func onLoop(t *testing.T, l *core.Loop, fn func()) {
	t.Helper()
	done := make(chan struct{})
	if err := l.Post(func() { defer close(done); fn() }); err != nil {
		t.Fatal(err)
	}
	<-done
}

// PeerWatch runs its func when the peer closes or resets the connection,
// and never when the peer sends bytes (they end the watch, and stay for the
// next Read), after Stop, or after our own Close.
func TestPeerWatch(t *testing.T) {
	cases := []struct {
		name string
		// peer acts on the watched conn's peer; ended returns once the
		// watch has ended.
		peer     func(p *net.TCPConn, ended func()) error
		wantGone bool
	}{
		{"peer closes", func(p *net.TCPConn, _ func()) error { return p.Close() }, true},
		{"peer resets", func(p *net.TCPConn, _ func()) error { p.SetLinger(0); return p.Close() }, true},
		{"peer half-closes", func(p *net.TCPConn, _ func()) error { return p.CloseWrite() }, true},
		{"peer sends a byte, then closes", func(p *net.TCPConn, ended func()) error {
			if _, err := p.Write([]byte("x")); err != nil {
				return err
			}
			ended() // the byte ended the watch: the close comes after
			return p.Close()
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				c, peer := tcpPeers(t, l)
				runLoop(t, l)
				gone := make(chan struct{}, 2)
				var w PeerWatch
				onLoop(t, l, func() {
					if err := w.Start(c, func() { gone <- struct{}{} }); err != nil {
						t.Error(err)
					}
				})
				ended := func() {
					for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
						watching := true
						onLoop(t, l, func() { watching = w.Watching() })
						if !watching {
							return
						}
						if time.Now().After(deadline) {
							t.Fatal("the watch still on 10 s after the peer sent a byte")
						}
					}
				}
				if err := tc.peer(peer, ended); err != nil {
					t.Fatal(err)
				}
				// Where the peer has gone, gone must run: 10 s is a hang
				// guard. Where it sent a byte, gone must not run: 200 ms
				// is how long the test looks (a negative cannot be waited
				// for; a slow machine can only hide a failure, not make
				// one).
				window := 200 * time.Millisecond
				if tc.wantGone {
					window = 10 * time.Second
				}
				select {
				case <-gone:
					if !tc.wantGone {
						t.Fatal("gone ran, but the peer sent a byte first")
					}
				case <-time.After(window):
					if tc.wantGone {
						t.Fatal("gone did not run within 10 s of the peer's going")
					}
				}
				time.Sleep(10 * time.Millisecond)
				if len(gone) != 0 {
					t.Fatal("gone ran twice")
				}
				if !tc.wantGone {
					// The byte is still there: the watch only peeked.
					var b [4]byte
					n, err := c.Read(b[:])
					if n != 1 || b[0] != 'x' || err != nil {
						t.Fatalf("Read after the watch: %d %q %v, want the peer's byte", n, b[:n], err)
					}
				}
			})
		})
	}
}

// Stop and Close end a watch without its func; Start refuses a closed conn,
// a datagram conn and a started watch.
func TestPeerWatchStopAndMisuse(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c, peer := tcpPeers(t, l)
		c2, peer2 := tcpPeers(t, l)
		runLoop(t, l)
		ran := make(chan string, 4)
		var w, w2 PeerWatch
		onLoop(t, l, func() {
			if err := w.Start(c, func() { ran <- "stopped watch" }); err != nil {
				t.Error(err)
			}
			if !w.Stop() || w.Stop() {
				t.Error("Stop: want true once, then false")
			}
			if err := w2.Start(c2, func() { ran <- "closed conn's watch" }); err != nil {
				t.Error(err)
			}
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(r.(string), "started") {
						t.Errorf("Start on a started PeerWatch: panic %v, want one that says so", r)
					}
				}()
				_ = w2.Start(c2, func() {})
			}()
		})
		if err := c2.Close(); err != nil {
			t.Fatal(err)
		}
		peer.Close()
		peer2.Close()
		time.Sleep(50 * time.Millisecond)
		select {
		case who := <-ran:
			t.Fatalf("the %s ran its func", who)
		default:
		}
		onLoop(t, l, func() {
			var w3 PeerWatch
			if err := w3.Start(c2, func() {}); !errors.Is(err, net.ErrClosed) {
				t.Errorf("Start on a closed conn: %v, want net.ErrClosed", err)
			}
		})
		u, err := ListenPacket(l, "udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer u.Close()
		d, err := Dial(l, "udp", u.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		onLoop(t, l, func() {
			var w4 PeerWatch
			if err := w4.Start(d, func() {}); err == nil || !strings.Contains(err.Error(), "datagram") {
				t.Errorf("Start on a datagram conn: %v, want an error naming it", err)
			}
		})
	})
}

// A watch alone does not keep the loop running: Run returns at once, and
// the watch fires in a later run.
func TestPeerWatchUnreferenced(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c, peer := tcpPeers(t, l)
		gone := make(chan struct{})
		var w PeerWatch
		l.Defer(func(core.CallbackID) {
			if err := w.Start(c, func() { close(gone) }); err != nil {
				t.Error(err)
			}
		})
		// Were the watch referenced, Run would wait for the peer's going,
		// which comes in 3s.
		later := time.AfterFunc(3*time.Second, func() { peer.Close() })
		defer later.Stop()
		start := time.Now()
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Run with only a watch took %v: the watch kept it running", d)
		}
		peer.Close()
		// A referenced timer keeps this run going until the watch fires.
		keep := l.Delay(5*time.Second, func(core.CallbackID) { t.Error("the watch did not fire in 5s") })
		if err := l.RunUntil(gone); err != nil {
			t.Fatal(err)
		}
		l.Cancel(keep)
	})
}

// Arming a watch again allocates nothing (httpserver arms one per request
// whose handler watches its context).
func TestPeerWatchAllocatesNothing(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c, _ := tcpPeers(t, l)
		var w PeerWatch
		l.Defer(func(core.CallbackID) {
			gone := func() {}
			_ = w.Start(c, gone)
			w.Stop()
			if n := testing.AllocsPerRun(100, func() {
				if err := w.Start(c, gone); err != nil {
					t.Error(err)
				}
				w.Stop()
			}); n != 0 {
				t.Errorf("Start and Stop: %v allocations, want 0", n)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}
