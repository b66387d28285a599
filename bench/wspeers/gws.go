package main

import (
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/lxzan/gws"
)

// gwsEcho is gws' event handler for an echo server, as its README and
// examples/echo write it: OnMessage writes the message back and returns
// it to gws' pool.
type gwsEcho struct {
	gws.BuiltinEventHandler
	joined, left func(*gws.Conn) // with -broadcast
}

func (h *gwsEcho) OnOpen(c *gws.Conn) {
	if h.joined != nil {
		h.joined(c)
	}
}

func (h *gwsEcho) OnClose(c *gws.Conn, _ error) {
	if h.left != nil {
		h.left(c)
	}
}

func (h *gwsEcho) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	c.WriteMessage(m.Opcode, m.Bytes())
}

// serveGws is gws' Upgrader under net/http, each conn's ReadLoop in a
// goroutine of its own, as gws' README has it; ParallelEnabled off (one
// message of a conn at a time, as the other servers), Recovery as the
// README sets it, permessage-deflate with -compress (gws' defaults for
// it: no context takeover unless the client asks, messages under 512
// bytes sent as they are).
func serveGws(p params) error {
	h := &gwsEcho{}
	var writes *writeCounter
	if p.broadcast {
		writes = &writeCounter{}
		h.joined, h.left = gwsBroadcast(writes)
	}
	u := gws.NewUpgrader(h, &gws.ServerOption{
		ParallelEnabled:   false,
		Recovery:          gws.Recovery,
		PermessageDeflate: gws.PermessageDeflate{Enabled: p.compress},
	})
	var ln net.Listener
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	if writes != nil {
		ln = &countingListener{Listener: ln, writes: writes}
	}
	say("info net/http, GOMAXPROCS %d", runtime.GOMAXPROCS(0))
	return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := u.Upgrade(w, r)
		if err != nil {
			return // Upgrade has answered
		}
		go c.ReadLoop()
	}))
}

// gwsBroadcast is gws' Broadcaster: Broadcast(conn) for each conn, then
// Close. Broadcast only queues the frame (encoded once) on the conn's
// write queue, which a goroutine of gws writes; the part is done when
// the listener's conns have seen one Write return per conn that took it
// (writes counts them: nothing else is written during a broadcast, the
// client sending nothing).
func gwsBroadcast(writes *writeCounter) (joined, left func(*gws.Conn)) {
	set := &connSet[*gws.Conn]{}
	joined = func(c *gws.Conn) { set.add(nil, c) }
	left = func(c *gws.Conn) { set.remove(nil, c) }
	setBroadcast(func(msg []byte) (int, time.Duration, error) {
		conns := set.snapshot()[nil]
		before := writes.n.Load()
		start := time.Now()
		b := gws.NewBroadcaster(gws.OpcodeBinary, msg)
		n := 0
		for _, c := range conns {
			if b.Broadcast(c) == nil {
				n++
			}
		}
		b.Close()
		if err := writes.await(before+int64(n), 30*time.Second); err != nil {
			return 0, 0, err
		}
		return n, time.Since(start), nil
	}, set)
	return joined, left
}

// writeCounter counts the Writes of a listener's conns, and tells a
// waiter when a number of them is reached.
type writeCounter struct {
	n      atomic.Int64
	target atomic.Int64 // 0: nobody waits
	reach  chan struct{}
}

// await waits until the conns' Writes number n, counted from the
// listener's first; a caller takes the count before it starts the writes
// it waits for, which may return before it calls await.
func (w *writeCounter) await(n int64, timeout time.Duration) error {
	w.reach = make(chan struct{})
	w.target.Store(n)
	defer w.target.Store(0)
	if w.n.Load() >= n {
		return nil
	}
	select {
	case <-w.reach:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("the conns' Writes number %d after %v, want %d", w.n.Load(), timeout, n)
	}
}

func (w *writeCounter) wrote() {
	if n := w.n.Add(1); n == w.target.Load() {
		close(w.reach)
	}
}

type countingListener struct {
	net.Listener
	writes *writeCounter
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *writeCounter
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.writes.wrote()
	return n, err
}
