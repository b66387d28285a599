//go:build unix || windows

package websocket

import (
	"compress/flate"
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// Our client and our server echo text and binary messages, small and
// large, compressed (with and without context takeover) or not, upgraded
// from an httpserver route and on a listener of their own; then the
// client closes with 1000 and the server's OnClose sees it.
func TestEcho(t *testing.T) {
	modes := []struct {
		name string
		o    Options
	}{
		{"plain", Options{}},
		{"deflate", Options{Compression: true}},
		// At the best level, whose matches reach into earlier messages
		// (BestSpeed starts each small block afresh).
		{"deflate-takeover", Options{Compression: true, ContextTakeover: true, CompressionLevel: flate.BestCompression}},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, r := range routes {
			for _, m := range modes {
				t.Run(r.String()+"/"+m.name, func(t *testing.T) {
					srec := newRecorder()
					srv := echoServer(srec)
					srv.Compression, srv.ContextTakeover, srv.CompressionLevel = m.o.Compression, m.o.ContextTakeover, m.o.CompressionLevel
					addr := serveWS(t, l, srv, r)
					crec := newRecorder()
					d := &Dialer{Options: m.o}
					d.OnMessage, d.OnClose = crec.onMessage, crec.onClose
					c, _, err := d.Dial(context.Background(), l, "ws://"+addr+"/")
					if err != nil {
						t.Fatal(err)
					}
					if c.Compressed() != m.o.Compression {
						t.Errorf("Compressed() = %v", c.Compressed())
					}
					msgs := []message{{Text, "hello"}, {Binary, "\x00\x01\x02"}, {Text, ""},
						{Text, strings.Repeat("ab€", 50_000)}, {Binary, strings.Repeat("x", 70_000)},
						// As large as a message may be, and incompressible: compressed,
						// its frame is a little larger than the limit of a message.
						{Binary, string(random(DefaultMaxMessageSize))}}
					// Alike but for their start, and each incompressible alone: with
					// context takeover, the second and later are mostly references
					// to the first.
					same := base64.StdEncoding.EncodeToString(random(300))
					for i := range 5 {
						msgs = append(msgs, message{Text, fmt.Sprintf("message %d: %s", i, same)})
					}
					for _, msg := range msgs {
						if err := c.WriteMessage(msg.typ, []byte(msg.p)); err != nil {
							t.Fatal(err)
						}
					}
					for _, want := range msgs {
						if got := crec.message(t); got != want {
							t.Fatalf("echo: got %v %.40q (%d bytes), want %v %.40q", got.typ, got.p, len(got.p), want.typ, want.p)
						}
					}
					if err := c.Close(CloseNormal, "bye"); err != nil {
						t.Fatal(err)
					}
					if e := srec.close(t); e.Code != CloseNormal || e.Reason != "bye" || !e.Remote {
						t.Errorf("the server's OnClose: %+v", e)
					}
					if e := crec.close(t); e.Code != CloseNormal || e.Remote {
						t.Errorf("the client's OnClose: %+v", e)
					}
				})
			}
		}
	})
}

// random is n bytes that do not compress.
func random(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(b)
	return b
}
