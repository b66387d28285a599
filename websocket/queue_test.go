package websocket

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// queuedFrames parses what c has queued, unmasking a client's frames; all
// of them are small.
func queuedFrames(t *testing.T, c *Conn) []frame {
	t.Helper()
	var fs []frame
	b := c.out.bytes()
	for len(b) > 0 {
		f := frame{op: opcode(b[0] & 0xf), masked: b[1]&0x80 != 0}
		n, h := int(b[1]&0x7f), 2
		if n > 125 {
			t.Fatalf("a queued frame of %d bytes or more", n)
		}
		var key [4]byte
		if f.masked {
			copy(key[:], b[2:6])
			h += 4
		}
		f.p = append([]byte(nil), b[h:h+n]...)
		if f.masked {
			mask(key, 0, f.p)
		}
		fs = append(fs, f)
		b = b[h+n:]
	}
	return fs
}

// A pong replaces the pong queued and not yet written, whatever the
// lengths of the two: the queue then holds one pong, the last one's
// payload, and every other frame as it was, in order; queued counts its
// bytes. On both sides: a client's frames are masked.
func TestPongReplacesTheQueuedOne(t *testing.T) {
	for _, client := range []bool{false, true} {
		t.Run(fmt.Sprintf("client=%v", client), func(t *testing.T) {
			// A flush is scheduled already, so the queue is left alone.
			c := &Conn{opts: &Options{}, client: client, flushing: true}
			c.WriteMessage(Text, []byte("a"))
			c.control(opPong, []byte("1"))
			c.WriteMessage(Text, []byte("b"))
			for _, p := range []string{"2", "three", "", "4"} {
				c.control(opPong, []byte(p))
				var data, pongs []string
				for _, f := range queuedFrames(t, c) {
					if f.op == opPong {
						pongs = append(pongs, string(f.p))
					} else {
						data = append(data, string(f.p))
					}
					if f.masked != client {
						t.Errorf("a frame masked %v on a conn with client %v", f.masked, client)
					}
				}
				if fmt.Sprint(data) != "[a b]" || fmt.Sprint(pongs) != fmt.Sprintf("[%s]", p) {
					t.Errorf("after a pong of %q: messages %q and pongs %q queued", p, data, pongs)
				}
				if n := len(c.out.bytes()); c.queued != n {
					t.Errorf("after a pong of %q: queued says %d bytes, the queue holds %d", p, c.queued, n)
				}
			}
		})
	}
}

// A broadcast's frame is held by the conns it goes to as it is, not
// copied into each one's queue: a 64 KiB message broadcast to 32 conns
// allocates far less than 32 copies of it. The clients read into buffers
// of their own, which allocates nothing.
func TestBroadcastIsNotCopiedPerConn(t *testing.T) {
	const conns, size = 32, 64 << 10
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		addr := serveWS(t, l, echoServer(rec), viaListener)
		var cs []*Conn
		for range conns {
			rc, _ := dialRaw(t, addr, "")
			cs = append(cs, rec.conn(t))
			go func() {
				buf := make([]byte, 32<<10)
				for {
					if _, err := rc.c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
		msg := bytes.Repeat([]byte("x"), size)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if n := Broadcast(cs, Binary, msg); n != conns {
			t.Fatalf("Broadcast took %d conns of %d", n, conns)
		}
		// Until every flush has run: then none of the conns holds a
		// queue of its own.
		deadline := time.Now().Add(hangGuard)
		for _, c := range cs {
			for {
				c.mu.Lock()
				flushing := c.flushing
				c.mu.Unlock()
				if !flushing {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the broadcast's flushes did not end")
				}
				time.Sleep(time.Millisecond)
			}
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 8*size {
			t.Errorf("a broadcast of %d bytes to %d conns allocated %d bytes, want at most %d", size, conns, n, 8*size)
		}
	})
}
