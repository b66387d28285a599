//go:build unix || windows

package websocket

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// idleConns is how many idle conns TestIdleConnsHoldNothing holds: 200
// on Windows, where a dial and its handshake under Wine and the race
// detector took about 60 ms on afd and 40 on stream, so that four rounds
// of a thousand on each driver ran past the test's watchdog.
var idleConns = 1000

func init() {
	if runtime.GOOS == "windows" {
		idleConns = 200
	}
}

// idleBudget guards, against regressions, what a WebSocket conn costs
// beyond a served socket conn while it waits: its Conn (240 B) and two
// method values, 270-290 B as measured on every driver here; not a
// target.
const idleBudget = 384

// An idle conn holds no fiber and no buffer: 1 000 upgraded conns, from
// an httpserver route and on a listener, leave the loop's live fibers
// (and, but on netpoll, which has a helper per descriptor, the
// goroutines) where they were, and cost a few hundred bytes of heap each
// beyond a socket conn served the same way; then they are all served.
func TestIdleConnsHoldNothing(t *testing.T) {
	// The blocked-call report's sampler, which looks at a loop held 5 ms
	// (dialing a thousand conns can), builds a goroutine profile of every
	// goroutine (on netpoll, one per descriptor): heap that one of the two
	// measurements may count and the other not.
	t.Setenv(core.EnvBlocked, "0")
	raiseFDs(t, uint64(3*idleConns+256))
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		per := map[route]float64{}
		// A first round that is not counted: the loop and the process
		// grow what they grow once (netpoll's first descriptors cost more).
		for i, r := range append([]route{viaListener}, routes...) {
			n := idleHeap(t, l, func(ln *socket.Listener, opened func()) {
				srv := &Server{
					OnOpen: func(*Conn, *http.Request) { opened() },
					Options: Options{OnMessage: func(c *Conn, typ MessageType, p []byte) {
						c.WriteMessage(typ, p)
					}},
				}
				switch r {
				case viaHTTP:
					go serveHTTPOn(l, ln, srv)
				case viaListener:
					go srv.Serve(l, ln)
				}
			})
			if i > 0 {
				per[r] = n
			}
		}
		base := idleHeap(t, l, func(ln *socket.Listener, opened func()) {
			go ln.Serve(func(c *socket.Conn, in []byte, err error) int {
				switch {
				case err != nil:
				case bytes.Contains(in, []byte("\r\n\r\n")):
					c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\n\r\n"))
					opened()
				default:
					c.Write(in)
				}
				return len(in)
			})
		})
		t.Logf("a served socket conn and its client: %.0f B", base)
		for _, r := range routes {
			t.Logf("%s: an idle WebSocket conn and its client: %.0f B, %.0f B beyond a served socket conn", r, per[r], per[r]-base)
			if per[r]-base > idleBudget {
				t.Errorf("%s: an idle conn costs %.0f B beyond a served socket conn, want at most %d", r, per[r]-base, idleBudget)
			}
		}
	})
}

// idleHeap serves idleConns conns on a listener of l with serve (which
// calls opened once per conn upgraded), checks that they hold no fiber,
// and returns the heap they cost per conn, clients included; then it
// sees a few of them served, and closes them all.
func idleHeap(t *testing.T, l *core.Loop, serve func(ln *socket.Listener, opened func())) float64 {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var n atomic.Int64
	ready := make(chan struct{})
	serve(ln, func() {
		if n.Add(1) == int64(idleConns)+1 {
			close(ready)
		}
	})
	addr := ln.Addr().String()
	// One conn first, so that the loop's own fibers (the accepting one,
	// the guard of its served conns) are there before the count.
	first := idleDial(t, addr)
	defer first.Close()
	stats := func() core.Stats {
		s := make(chan core.Stats, 1)
		l.Post(func() { s <- l.Stats() })
		return <-s
	}
	waitIdle := func() {
		for range 2 { // a tick for what the last bytes started, and one more
			stats()
		}
	}
	waitIdle()
	before := stats().FibersLive
	goroutines := runtime.NumGoroutine()
	heap := liveHeap()
	conns := make([]net.Conn, idleConns)
	for i := range conns {
		conns[i] = idleDial(t, addr)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	select {
	case <-ready:
	case <-time.After(hangGuard):
		t.Fatalf("%d conns opened of %d", n.Load(), idleConns+1)
	}
	waitIdle()
	per := (liveHeap() - heap) / float64(idleConns)
	if live := stats().FibersLive; live > before {
		t.Errorf("%d fibers live with %d idle conns, %d before", live, idleConns, before)
	}
	if g := runtime.NumGoroutine(); l.Driver().Name() != "netpoll" && g > goroutines {
		t.Errorf("%d goroutines with %d idle conns, %d before", g, idleConns, goroutines)
	}
	for i := 0; i < idleConns; i += idleConns / 10 {
		c := conns[i]
		c.SetDeadline(time.Now().Add(hangGuard))
		msg := fmt.Sprintf("conn %d", i)
		c.Write(frame{fin: true, op: opText, p: []byte(msg), masked: true}.bytes())
		b := make([]byte, 64)
		// A WebSocket conn echoes the message, the socket conn the bytes.
		if k, err := c.Read(b); err != nil || k == 0 {
			t.Errorf("conn %d: %q %v", i, b[:k], err)
		}
	}
	return per
}

// idleDial opens a conn to addr and does its handshake, holding as
// little as a client can: no buffer.
func idleDial(t *testing.T, addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(hangGuard))
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	var b [512]byte
	n := 0
	for !bytes.Contains(b[:n], []byte("\r\n\r\n")) {
		k, err := c.Read(b[n:])
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		n += k
	}
	if !bytes.HasPrefix(b[:n], []byte("HTTP/1.1 101 ")) {
		t.Fatalf("handshake: %q", b[:n])
	}
	c.SetDeadline(time.Time{})
	return c
}

// liveHeap is the heap's live bytes after two collections. (A fiber per
// conn would cost its stack, outside the heap: the count of live fibers
// is what sees it.)
func liveHeap() float64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}
