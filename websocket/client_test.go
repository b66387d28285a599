//go:build unix || windows

package websocket

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// fakeServer answers one handshake on a listener of net's with respond
// (given the request), then sends frames and returns on got the close
// code the client sends back (-1 if none).
func fakeServer(t *testing.T, respond func(r *http.Request) string, frames []byte) (url string, got <-chan int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan int, 1)
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			ch <- -1
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		r, err := http.ReadRequest(br)
		if err != nil {
			ch <- -1
			return
		}
		io.WriteString(c, respond(r))
		c.Write(frames)
		for {
			var h [2]byte
			if _, err := io.ReadFull(br, h[:]); err != nil {
				ch <- -1
				return
			}
			n := int(h[1] & 0x7f)
			p := make([]byte, 4+n) // client frames are masked
			if _, err := io.ReadFull(br, p); err != nil {
				ch <- -1
				return
			}
			mask([4]byte(p[:4]), 0, p[4:])
			if opcode(h[0]&0xf) == opClose && n >= 2 {
				ch <- int(binary.BigEndian.Uint16(p[4:]))
				return
			}
		}
	}()
	return "ws://" + ln.Addr().String() + "/", ch
}

func accept(ext string) func(r *http.Request) string {
	return func(r *http.Request) string {
		return fmt.Sprintf("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n%s\r\n",
			acceptKey(r.Header.Get("Sec-WebSocket-Key")), ext)
	}
}

// The client keeps the rules of its side: a masked frame from a server
// fails the conn with 1002 (RFC 6455 5.1), and so does a frame of the
// server's that breaks any rule; a handshake answered wrong is an error.
func TestClientBadInput(t *testing.T) {
	masked := frame{fin: true, op: opText, masked: true, p: []byte("hi")}.bytes()
	unmasked := frame{fin: true, op: opText, p: []byte("hi")}.bytes()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range []struct {
			name   string
			frames []byte
			code   int
		}{
			{"masked server frame", masked, CloseProtocolError},
			{"reserved opcode", frame{fin: true, op: 0xC}.bytes(), CloseProtocolError},
			{"invalid UTF-8", frame{fin: true, op: opText, p: []byte("\xff")}.bytes(), CloseInvalidPayload},
			{"message then close", append(unmasked, frame{fin: true, op: opClose, p: []byte("\x0f\xa1")}.bytes()...), 4001},
		} {
			t.Run(c.name, func(t *testing.T) {
				url, got := fakeServer(t, accept(""), c.frames)
				rec := newRecorder()
				if _, err := Dial(l, url, &Options{OnMessage: rec.onMessage, OnClose: rec.onClose}); err != nil {
					t.Fatal(err)
				}
				select {
				case code := <-got:
					if code != c.code {
						t.Errorf("the client sent close %d, want %d", code, c.code)
					}
				case <-time.After(hangGuard):
					t.Fatal("the client sent no close frame")
				}
				if e := rec.close(t); e.Code != c.code {
					t.Errorf("OnClose %+v", e)
				}
			})
		}
		for _, c := range []struct {
			name    string
			respond func(r *http.Request) string
			want    string
		}{
			{"not 101", func(*http.Request) string { return "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n" }, "403"},
			{"wrong accept", func(*http.Request) string {
				return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n"
			}, "Sec-WebSocket-Accept"},
			{"extension not offered", accept("Sec-WebSocket-Extensions: permessage-deflate\r\n"), "not offered"},
		} {
			t.Run(c.name, func(t *testing.T) {
				url, _ := fakeServer(t, c.respond, nil)
				_, _, err := (&Dialer{}).Dial(context.Background(), l, url)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("Dial: %v, want an error saying %q", err, c.want)
				}
			})
		}
	})
}
