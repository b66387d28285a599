//go:build unix || windows

package websocket

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// wantFrames reads len(want) frames from rc and checks each: its FIN bit,
// opcode and payload.
func wantFrames(t *testing.T, rc *rawClient, want ...frame) {
	t.Helper()
	for i, w := range want {
		f, err := rc.read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.fin != w.fin || f.op != w.op || f.rsv != 0 || string(f.p) != string(w.p) {
			t.Fatalf("frame %d: fin %v %v %q, want fin %v %v %q", i, f.fin, f.op, f.p, w.fin, w.op, w.p)
		}
	}
}

// openWriter serves srv (recorded by rec) on l by route r, dials it by
// hand with the extra header lines ext, and opens a writer of a message
// of type typ on the server's conn.
func openWriter(t *testing.T, l *core.Loop, rec *recorder, srv *Server, r route, ext string, typ MessageType) (*rawClient, *Conn, io.WriteCloser) {
	t.Helper()
	rc, _ := dialRaw(t, serveWS(t, l, srv, r), ext)
	c := rec.conn(t)
	w, err := c.NextWriter(typ)
	if err != nil {
		t.Fatal(err)
	}
	return rc, c, w
}

// sf is a server frame as wantFrames checks it.
func sf(fin bool, op opcode, p string) frame { return frame{fin: fin, op: op, p: []byte(p)} }

// A message writer's Writes go out as fragments of one message, a ping
// goes between them, and a whole message sent meanwhile waits until the
// writer is closed (RFC 6455 5.4: fragments of two messages never
// interleave). One writer at a time; a closed one refuses more.
func TestNextWriterFragments(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		rc, c, w := openWriter(t, l, rec, srv, viaListener, "", Text)
		if _, err := c.NextWriter(Binary); err != ErrWriterOpen {
			t.Errorf("a second NextWriter: %v, want ErrWriterOpen", err)
		}
		mustWrite(t, w, "hel")
		if err := c.WriteMessage(Binary, []byte("after")); err != nil {
			t.Fatal(err)
		}
		if err := c.Ping([]byte("p")); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, w, "")
		mustWrite(t, w, "lo")
		wantFrames(t, rc, sf(false, opText, "hel"), sf(true, opPing, "p"), sf(false, opContinuation, "lo"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		wantFrames(t, rc, sf(true, opContinuation, ""), sf(true, opBinary, "after"))
		if _, err := w.Write([]byte("x")); err != errWriterClosed {
			t.Errorf("Write after Close: %v, want %v", err, errWriterClosed)
		}
		if err := w.Close(); err != errWriterClosed {
			t.Errorf("a second Close: %v, want %v", err, errWriterClosed)
		}

		// A writer closed at once sends an empty message.
		w, err := c.NextWriter(Binary)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		wantFrames(t, rc, sf(true, opBinary, ""))

		c.CloseNow()
		rec.close(t)

		defer func() {
			if recover() == nil {
				t.Error("NextWriter with a ping's type did not panic")
			}
		}()
		c.NextWriter(MessageType(opPing))
	})
}

func mustWrite(t *testing.T, w interface{ Write([]byte) (int, error) }, s string) {
	t.Helper()
	if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
		t.Fatalf("Write(%q): %d, %v", s, n, err)
	}
}

// Close while a writer is open: the close frame waits behind the rest of
// the message, which the writer may still send; other sends fail at once.
func TestNextWriterThenClose(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		rc, c, w := openWriter(t, l, rec, srv, viaHTTP, "", Binary)
		mustWrite(t, w, "a")
		if err := c.Close(CloseGoingAway, "bye"); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteMessage(Text, []byte("late")); err != ErrClosed {
			t.Errorf("WriteMessage after Close: %v, want ErrClosed", err)
		}
		if _, err := c.NextWriter(Text); err != ErrClosed {
			t.Errorf("NextWriter after Close: %v, want ErrClosed", err)
		}
		mustWrite(t, w, "b")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		wantFrames(t, rc, sf(false, opBinary, "a"), sf(false, opContinuation, "b"), sf(true, opContinuation, ""))
		f, err := rc.read()
		if err != nil || f.op != opClose || binary.BigEndian.Uint16(f.p) != CloseGoingAway {
			t.Fatalf("after the message: %v %q, %v; want the close frame", f.op, f.p, err)
		}
		rc.send(cf(opClose, string(f.p[:2])))
		if e := rec.close(t); e.Code != CloseGoingAway {
			t.Errorf("OnClose: %+v", e)
		}
	})
}

// A writer that passes MaxQueuedBytes fails the conn as WriteMessage
// does (1008), and drops what waited behind it; its later calls and the
// conn's sends fail with ErrClosed.
func TestNextWriterQueueFull(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.MaxQueuedBytes, srv.CloseTimeout = 4<<10, 100*time.Millisecond
		rc, c, w := openWriter(t, l, rec, srv, viaListener, "", Text)
		mustWrite(t, w, "first")
		if err := c.WriteMessage(Text, []byte("held")); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(strings.Repeat("x", 8<<10))); err != ErrQueueFull {
			t.Fatalf("a Write past the bound: %v, want ErrQueueFull", err)
		}
		if _, err := w.Write([]byte("more")); err != ErrClosed {
			t.Errorf("Write after the failure: %v, want ErrClosed", err)
		}
		if err := w.Close(); err != ErrClosed {
			t.Errorf("Close after the failure: %v, want ErrClosed", err)
		}
		for {
			f, err := rc.read()
			if err != nil {
				t.Fatalf("no close frame: %v", err)
			}
			if string(f.p) == "held" {
				t.Fatal("the message behind the failed writer was sent")
			}
			if f.op == opClose {
				if code := binary.BigEndian.Uint16(f.p); code != ClosePolicyViolation {
					t.Errorf("close code %d, want 1008", code)
				}
				break
			}
		}
		if e := rec.close(t); e.Code != ClosePolicyViolation {
			t.Errorf("OnClose: %+v", e)
		}
		c.mu.Lock()
		left := c.queued + len(c.held)
		if c.out != nil {
			left += 1 + len(c.out.bytes())
		}
		c.mu.Unlock()
		if left != 0 || !errors.Is(c.WriteMessage(Text, nil), ErrClosed) {
			t.Errorf("after the end: %d bytes or frames queued", left)
		}
	})
}

// On a conn that compresses, a writer's message is one deflate stream
// cut into its frames: RSV1 on the first frame alone, each part flushed,
// the last sync flush's tail left out (RFC 7692 7.2.1), so that the
// frames' payloads joined inflate to the message. Without context
// takeover a message sent meanwhile is compressed on its own; with it,
// that message goes uncompressed, and the next compressed one inflates
// with the writer's message as its window.
func TestNextWriterCompressed(t *testing.T) {
	parts := []string{strings.Repeat("compress me, ", 100), "", "and me too", strings.Repeat("z", 5000)}
	whole := strings.Join(parts, "")
	for _, takeover := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "takeover"}[takeover], func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				rec := newRecorder()
				srv := echoServer(rec)
				srv.Compression, srv.ContextTakeover = true, takeover
				rc, c, w := openWriter(t, l, rec, srv, viaListener, "Sec-WebSocket-Extensions: permessage-deflate\r\n", Text)
				if c.pmd.outTakeover != takeover {
					t.Fatalf("context takeover %v, want %v", c.pmd.outTakeover, takeover)
				}
				for i, p := range parts {
					mustWrite(t, w, p)
					if i == 0 {
						c.WriteMessage(Binary, []byte("meanwhile"))
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				c.WriteMessage(Text, []byte(whole))

				var joined []byte
				for i := 0; ; i++ {
					f, err := rc.read()
					if err != nil {
						t.Fatal(err)
					}
					wantOp, wantRSV := opContinuation, byte(0)
					if i == 0 {
						wantOp, wantRSV = opText, rsv1
					}
					if f.op != wantOp || f.rsv != wantRSV {
						t.Fatalf("frame %d: %v rsv %d, want %v rsv %d", i, f.op, f.rsv, wantOp, wantRSV)
					}
					joined = append(joined, f.p...)
					if f.fin {
						break
					}
				}
				got, ce := inflate(nil, joined, nil, 1<<20)
				if ce != nil || string(got) != whole {
					t.Fatalf("the frames inflate to %d bytes, %v; want the %d written", len(got), ce, len(whole))
				}
				f, err := rc.read()
				if err != nil || f.op != opBinary || (f.rsv == rsv1) == takeover {
					t.Fatalf("the message sent meanwhile: %v rsv %d, %v; want it compressed: %v", f.op, f.rsv, err, !takeover)
				}
				if f.rsv == 0 && string(f.p) != "meanwhile" {
					t.Fatalf("the message sent meanwhile: %q", f.p)
				}
				f, err = rc.read()
				if err != nil || f.rsv != rsv1 {
					t.Fatalf("the message after: rsv %d, %v; want it compressed", f.rsv, err)
				}
				var dict []byte
				if takeover {
					dict = []byte(whole)
				}
				if got, ce := inflate(nil, f.p, dict, 1<<20); ce != nil || string(got) != whole {
					t.Fatalf("the message after inflates to %d bytes, %v; want %d", len(got), ce, len(whole))
				}
				c.CloseNow()
				rec.close(t)
			})
		})
	}
}

// The peer's close frame while a writer is open: the answer waits behind
// the rest of the message (RFC 6455 5.5.1), and the TCP conn closes once
// both are written, not before.
func TestNextWriterThenPeerCloses(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		rc, c, w := openWriter(t, l, rec, echoServer(rec), viaListener, "", Text)
		mustWrite(t, w, "a")
		rc.send(cf(opClose, "\x03\xe8bye"))
		for deadline := time.Now().Add(hangGuard); ; time.Sleep(time.Millisecond) {
			c.mu.Lock()
			closing := c.closing
			c.mu.Unlock()
			if closing {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the peer's close frame was not taken")
			}
		}
		mustWrite(t, w, "b")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		wantFrames(t, rc, sf(false, opText, "a"), sf(false, opContinuation, "b"), sf(true, opContinuation, ""))
		if code := rc.closeCode(); code != CloseNormal {
			t.Errorf("the answer's code: %d, want 1000", code)
		}
		if e := rec.close(t); e.Code != CloseNormal || !e.Remote {
			t.Errorf("OnClose: %+v", e)
		}
	})
}
