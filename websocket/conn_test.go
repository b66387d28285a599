//go:build unix || windows

package websocket

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A peer that never reads while the server broadcasts: its queue stops
// at MaxQueuedBytes, the conn closes with 1008 (its close frame cannot go
// out, so the close timeout ends it), and the other conns get every
// message that was queued for them.
func TestSlowReaderClosed(t *testing.T) {
	const fast = 4
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.MaxQueuedBytes, srv.CloseTimeout = 64<<10, 100*time.Millisecond
		addr := serveWS(t, l, srv, viaHTTP)
		slow, _ := dialRaw(t, addr, "")
		slowConn := rec.conn(t)
		var conns []*Conn
		var clients []*rawClient
		for range fast {
			rc, _ := dialRaw(t, addr, "")
			clients = append(clients, rc)
			conns = append(conns, rec.conn(t))
		}
		// The fast clients read in lockstep with the sends: their queues
		// hold a message at most, while the slow one's grows.
		slow.c.(*net.TCPConn).SetReadBuffer(16 << 10)
		read := make(chan error, fast)
		for _, rc := range clients {
			go func() {
				for {
					f, err := rc.read()
					if err != nil || string(f.p) == "end" {
						read <- fmt.Errorf("read: %v", err)
						return
					}
					read <- nil
				}
			}()
		}
		msg := []byte(strings.Repeat("x", 4096))
		sent := 0
		var slowEnd *CloseError
		for i := 0; slowEnd == nil; i++ {
			if i > 20_000 {
				t.Fatal("the slow conn is not closed after 20 000 messages (80 MB)")
			}
			pm := NewPreparedMessage(Binary, msg)
			for _, c := range conns {
				if err := c.WritePrepared(pm); err != nil {
					t.Fatalf("a fast conn refused message %d: %v", i, err)
				}
			}
			slowConn.WritePrepared(pm)
			sent++
			for range fast {
				if err := <-read; err != nil {
					t.Fatal(err)
				}
			}
			select {
			case slowEnd = <-rec.closed:
			default:
			}
		}
		if slowEnd.Code != ClosePolicyViolation || slowEnd.Remote {
			t.Errorf("the slow conn ended with %+v, want 1008 sent", slowEnd)
		}
		for _, c := range conns {
			c.WriteMessage(Text, []byte("end"))
		}
		for range fast {
			if err := <-read; err == nil {
				t.Error("a fast conn read more messages than were sent")
			}
		}
		slow.c.Close()
		t.Logf("the slow conn closed after %d messages of 4 KiB", sent)
	})
}

// A broadcast encodes its frame once: conns that take it as it is share
// one frame, compressed or not.
func TestBroadcastEncodesOnce(t *testing.T) {
	pm := NewPreparedMessage(Text, []byte(strings.Repeat("hello ", 100)))
	o := &Options{}
	a, b := &Conn{opts: o}, &Conn{opts: o}
	if fa, fb := pm.frame(a), pm.frame(b); &fa[0] != &fb[0] {
		t.Error("two plain conns got frames of their own")
	}
	z := deflateParams{on: true, outBits: 15}
	a.pmd, b.pmd = z, z
	fa, fb := pm.frame(a), pm.frame(b)
	if &fa[0] != &fb[0] || fa[0]&0x40 == 0 {
		t.Error("two compressing conns got frames of their own, or not compressed")
	}
	c := &Conn{opts: o, pmd: deflateParams{on: true, outBits: 9}} // the message is over its window
	if fc := pm.frame(c); fc[0]&0x40 != 0 {
		t.Error("a conn with a window of 2^9 got a compressed frame of 600 bytes")
	}
}

// Nothing from the peer for PingInterval: a ping; nothing for as long
// again: the conn is closed (1006). A peer that answers stays. The
// answering peer has an interval to answer in: 250 ms, since under Wine
// on a loaded machine 20 ms was once too short for the pong to arrive.
func TestPingTimeout(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.PingInterval = 250 * time.Millisecond
		addr := serveWS(t, l, srv, viaListener)

		alive, _ := dialRaw(t, addr, "")
		rec.conn(t)
		for range 3 {
			f, err := alive.read()
			if err != nil || f.op != opPing {
				t.Fatalf("%v %v, want a ping", f.op, err)
			}
			alive.send(cf(opPong, string(f.p)))
		}
		alive.send(cf(opClose, "\x03\xe8"))
		if code := alive.closeCode(); code != CloseNormal {
			t.Errorf("close %d", code)
		}
		if e := rec.close(t); e.Code != CloseNormal {
			t.Errorf("OnClose %+v", e)
		}

		mute, _ := dialRaw(t, addr, "")
		rec.conn(t)
		f, err := mute.read()
		if err != nil || f.op != opPing {
			t.Fatalf("%v %v, want a ping", f.op, err)
		}
		if f, err := mute.read(); err == nil {
			t.Fatalf("a %v frame after an unanswered ping, want the end", f.op)
		}
		if e := rec.close(t); e.Code != CloseAbnormal || !strings.Contains(e.Reason, "after a ping") {
			t.Errorf("OnClose %+v", e)
		}
	})
}

// The server closes first: its close frame goes behind the messages it
// queued; the client's answer ends the conn. A client that does not
// answer is cut off after CloseTimeout.
func TestServerCloses(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := &Server{
			OnOpen: func(c *Conn, r *http.Request) { rec.opened <- c },
			Options: Options{
				CloseTimeout: 50 * time.Millisecond,
				OnMessage: func(c *Conn, typ MessageType, p []byte) {
					c.WriteMessage(Text, []byte("last"))
					if err := c.Close(4000, "go"); err != nil {
						panic(err)
					}
					if err := c.WriteMessage(Text, []byte("too late")); err != ErrClosed {
						panic(fmt.Sprintf("a message after Close: %v", err))
					}
				},
				OnClose: rec.onClose,
			},
		}
		addr := serveWS(t, l, srv, viaHTTP)
		for _, answer := range []bool{true, false} {
			rc, _ := dialRaw(t, addr, "")
			rec.conn(t)
			rc.send(cf(opText, "hi"))
			if f, err := rc.read(); err != nil || string(f.p) != "last" {
				t.Fatalf("%v %q %v", f.op, f.p, err)
			}
			f, err := rc.read()
			if err != nil || f.op != opClose || string(f.p) != "\x0f\xa0go" {
				t.Fatalf("%v %q %v, want a close 4000", f.op, f.p, err)
			}
			if answer {
				rc.send(cf(opClose, "\x0f\xa0"))
			}
			if _, err := rc.br.ReadByte(); err == nil {
				t.Error("bytes after the close frame")
			}
			if e := rec.close(t); e.Code != 4000 || e.Reason != "go" || e.Remote {
				t.Errorf("answer %v: OnClose %+v", answer, e)
			}
		}
	})
}

// A message handler may suspend: the conn's next message waits for it,
// so messages are handled in order, while the loop serves other conns.
func TestHandlerSuspends(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		release := make(chan struct{})
		var waiting *core.Suspension
		suspended := make(chan struct{})
		rec := newRecorder()
		srv := echoServer(rec)
		srv.OnMessage = func(c *Conn, typ MessageType, p []byte) {
			if string(p) == "wait" {
				waiting = l.Suspension()
				close(suspended)
				waiting.Suspend()
			}
			c.WriteMessage(typ, p)
		}
		addr := serveWS(t, l, srv, viaListener)
		a, _ := dialRaw(t, addr, "")
		rec.conn(t)
		b, _ := dialRaw(t, addr, "")
		rec.conn(t)
		a.send(cf(opText, "wait"), cf(opText, "after"))
		<-suspended
		b.send(cf(opText, "meanwhile"))
		if f, err := b.read(); err != nil || string(f.p) != "meanwhile" {
			t.Fatalf("%q %v", f.p, err)
		}
		go func() { <-release; l.Post(func() { waiting.Resume(nil) }) }()
		close(release)
		for _, want := range []string{"wait", "after"} {
			if f, err := a.read(); err != nil || string(f.p) != want {
				t.Fatalf("%q %v, want %q", f.p, err, want)
			}
		}
	})
}

// Sends from many goroutines at once, and from fibers, all arrive, each
// goroutine's in its order.
func TestSendFromGoroutines(t *testing.T) {
	const senders, each = 8, 200
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		addr := serveWS(t, l, echoServer(rec), viaHTTP)
		crec := newRecorder()
		c, err := Dial(l, "ws://"+addr, &Options{OnMessage: crec.onMessage, OnClose: crec.onClose})
		if err != nil {
			t.Fatal(err)
		}
		server := rec.conn(t)
		var wg sync.WaitGroup
		for g := range senders {
			wg.Go(func() {
				for i := range each {
					if err := server.WriteMessage(Text, []byte(fmt.Sprintf("%d %d", g, i))); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		l.Post(func() {
			for i := range each {
				server.WriteMessage(Text, []byte(fmt.Sprintf("f %d", i)))
			}
		})
		wg.Wait()
		next := map[string]int{}
		for range (senders + 1) * each {
			var who string
			var i int
			m := crec.message(t)
			fmt.Sscanf(m.p, "%s %d", &who, &i)
			if i != next[who] {
				t.Fatalf("from %s: message %d, want %d", who, i, next[who])
			}
			next[who]++
		}
		c.Close(CloseNormal, "")
		crec.close(t)
		rec.close(t)
	})
}

// Dial's context bounds its handshake.
func TestDialHandshakeDeadline(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln := silentListener(t)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, _, err := (&Dialer{}).Dial(ctx, l, "ws://"+ln); err == nil {
			t.Fatal("a handshake with a server that never answers succeeded")
		}
	})
}

// A peer that pings without reading: each pong replaces the one queued
// and not yet written (RFC 6455 5.5.3 lets the last ping be answered),
// so 100 000 pings leave the conn's queue at a frame or two, and the
// conn serves on.
func TestPingFlood(t *testing.T) {
	const pings = 100_000
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.OnMessage = func(c *Conn, typ MessageType, p []byte) {
			c.mu.Lock()
			queued := c.queued
			c.mu.Unlock()
			c.WriteMessage(Text, []byte(fmt.Sprint(queued)))
		}
		addr := serveWS(t, l, srv, viaListener)
		rc, _ := dialRaw(t, addr, "")
		rec.conn(t)
		rc.c.(*net.TCPConn).SetReadBuffer(4 << 10)
		var batch []byte
		for i := range pings {
			batch = append(batch, cf(opPing, fmt.Sprint(i)).bytes()...)
			if len(batch) > 64<<10 || i == pings-1 {
				if _, err := rc.c.Write(batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		rc.send(cf(opText, "how many bytes are queued?"))
		pongs := 0
		for {
			f, err := rc.read()
			if err != nil {
				t.Fatal(err)
			}
			if f.op == opPong {
				pongs++
				continue
			}
			var queued int
			fmt.Sscan(string(f.p), &queued)
			if queued > 256 {
				t.Errorf("%d bytes queued after %d pings", queued, pings)
			}
			break
		}
		t.Logf("%d pongs for %d pings", pongs, pings)
		rc.send(cf(opClose, "\x03\xe8"))
		rc.closeCode()
		rec.close(t)
	})
}
