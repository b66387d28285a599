//go:build unix || windows

package websocket

import (
	"compress/flate"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// badLimit is the message limit of the server that bad input meets; its
// frames' is half that.
const badLimit = 64 << 10

// bomb is a compressed payload of about 1 KiB that inflates to 1 MiB,
// 16 times badLimit.
func bomb(t *testing.T) []byte {
	d := deflater{level: flate.BestCompression}
	b := d.compress(nil, make([]byte, 1<<20), false)
	if len(b) > 1200 {
		t.Fatalf("the bomb is %d bytes", len(b))
	}
	return b
}

// Every bad input a peer can send gets the RFC's answer: a close frame with
// its code, then the server closes the TCP conn, and OnClose says why;
// nothing leaks (eachDriver checks goroutines and descriptors).
func TestBadFrames(t *testing.T) {
	deflate := "Sec-WebSocket-Extensions: permessage-deflate\r\n"
	cases := []struct {
		name   string
		ext    string
		frames []frame
		code   int
	}{
		{"length 2^63", "", []frame{{fin: true, op: opBinary, masked: true, length: 1 << 63}}, CloseProtocolError},
		{"length 2^63-1", "", []frame{{fin: true, op: opBinary, masked: true, length: 1<<63 - 1}}, CloseTooBig},
		{"frame over the limit", "", []frame{{fin: true, op: opBinary, masked: true, length: badLimit/2 + 1}}, CloseTooBig},
		{"message over the limit in fragments", "", []frame{
			{op: opBinary, masked: true, p: make([]byte, badLimit/2)},
			{op: opContinuation, masked: true, p: make([]byte, badLimit/2)},
			{op: opContinuation, fin: true, masked: true, p: []byte("x")}}, CloseTooBig},
		{"unmasked client frame", "", []frame{{fin: true, op: opText, p: []byte("hi")}}, CloseProtocolError},
		{"RSV1 without permessage-deflate", "", []frame{{fin: true, rsv: 4, op: opText, masked: true, p: []byte("hi")}}, CloseProtocolError},
		{"RSV2", deflate, []frame{{fin: true, rsv: 2, op: opText, masked: true, p: []byte("hi")}}, CloseProtocolError},
		{"RSV3", "", []frame{{fin: true, rsv: 1, op: opText, masked: true, p: []byte("hi")}}, CloseProtocolError},
		{"RSV1 on a continuation", deflate, []frame{
			{op: opText, masked: true, p: []byte("a")},
			{fin: true, rsv: 4, op: opContinuation, masked: true, p: []byte("b")}}, CloseProtocolError},
		{"RSV1 on a ping", deflate, []frame{{fin: true, rsv: 4, op: opPing, masked: true}}, CloseProtocolError},
		{"reserved data opcode 3", "", []frame{cf(3, "x")}, CloseProtocolError},
		{"reserved control opcode 0xB", "", []frame{cf(0xB, "x")}, CloseProtocolError},
		{"continuation with no start", "", []frame{cf(opContinuation, "x")}, CloseProtocolError},
		{"new message inside a fragmented one", "", []frame{
			{op: opText, masked: true, p: []byte("a")}, cf(opText, "b")}, CloseProtocolError},
		{"fragmented ping", "", []frame{{op: opPing, masked: true}}, CloseProtocolError},
		{"ping of 126 bytes", "", []frame{cf(opPing, strings.Repeat("p", 126))}, CloseProtocolError},
		{"invalid UTF-8 split across fragments", "", []frame{
			{op: opText, masked: true, p: []byte("a\xe2\x82")},
			{fin: true, op: opContinuation, masked: true, p: []byte("z")}}, CloseInvalidPayload},
		{"invalid UTF-8 in a first fragment", "", []frame{{op: opText, masked: true, p: []byte("\xff")}}, CloseInvalidPayload},
		{"text ending inside a rune", "", []frame{
			{op: opText, masked: true, p: []byte("a")},
			{fin: true, op: opContinuation, masked: true, p: []byte("\xe2\x82")}}, CloseInvalidPayload},
		{"invalid UTF-8 in one frame", "", []frame{cf(opText, "\xc0\xaf")}, CloseInvalidPayload},
		{"close with a 1-byte payload", "", []frame{cf(opClose, "\x03")}, CloseProtocolError},
		{"close with code 1005", "", []frame{cf(opClose, "\x03\xed")}, CloseProtocolError},
		{"close reason not UTF-8", "", []frame{cf(opClose, "\x03\xe8\xff")}, CloseInvalidPayload},
		{"inflate bomb", deflate, []frame{{fin: true, rsv: 4, op: opBinary, masked: true, p: bomb(t)}}, CloseTooBig},
		{"compressed garbage", deflate, []frame{{fin: true, rsv: 4, op: opBinary, masked: true, p: []byte{0xff, 0xff, 0xff}}}, CloseInvalidPayload},
		{"compressed text not UTF-8", deflate, []frame{{fin: true, rsv: 4, op: opText, masked: true,
			p: (&deflater{level: 1}).compress(nil, []byte("ok\xff"), false)}}, CloseInvalidPayload},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, r := range routes {
			rec := newRecorder()
			srv := echoServer(rec)
			srv.MaxMessageSize, srv.MaxFrameSize, srv.Compression = badLimit, badLimit/2, true
			addr := serveWS(t, l, srv, r)
			for _, c := range cases {
				t.Run(r.String()+"/"+c.name, func(t *testing.T) {
					rc, _ := dialRaw(t, addr, c.ext)
					rec.conn(t)
					rc.send(c.frames...)
					if code := rc.closeCode(); code != c.code {
						t.Errorf("close code %d, want %d", code, c.code)
					}
					if e := rec.close(t); e.Code != c.code || e.Remote {
						t.Errorf("OnClose: %+v, want code %d sent", e, c.code)
					} else {
						t.Logf("OnClose: %v", e)
					}
				})
			}
		}
	})
}

// Control frames may come between a message's fragments (RFC 6455 5.4):
// the ping is answered at once, and the message is whole when its last
// fragment comes; a rune split by a fragment boundary is valid.
func TestControlBetweenFragments(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		addr := serveWS(t, l, echoServer(rec), viaListener)
		rc, _ := dialRaw(t, addr, "")
		rc.send(frame{op: opText, masked: true, p: []byte("a\xe2\x82")}, cf(opPing, "p1"),
			frame{op: opContinuation, masked: true, p: []byte("\xac ")}, cf(opPong, "unasked"), cf(opPing, "p2"),
			frame{fin: true, op: opContinuation, masked: true, p: []byte("b")})
		// Pongs come before the message (they were queued first); two
		// pings read in one batch get one pong, the last's (RFC 6455 5.5.3).
		var got []string
		for {
			f, err := rc.read()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, f.op.String()+":"+string(f.p))
			if f.op != opPong {
				break
			}
		}
		if s := strings.Join(got, " "); s != "pong:p1 pong:p2 text:a€ b" && s != "pong:p2 text:a€ b" {
			t.Errorf("frames back: %q", got)
		}
		rc.send(cf(opClose, "\x03\xe8"))
		if code := rc.closeCode(); code != CloseNormal {
			t.Errorf("close code %d", code)
		}
		if e := rec.close(t); e.Code != CloseNormal || !e.Remote {
			t.Errorf("OnClose %+v", e)
		}
	})
}
