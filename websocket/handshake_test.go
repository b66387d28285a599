//go:build unix || windows

package websocket

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A request that is not a WebSocket handshake gets the status RFC 6455
// 4.2.1 and 4.4 call for, from an httpserver route and on a listener
// alike, and no conn is opened; a subprotocol both sides speak is agreed
// on, the server's first choice first.
func TestHandshake(t *testing.T) {
	const key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	const good = "Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n" + key
	cases := []struct {
		name, req string
		status    int
		header    [2]string // a field the response must hold
	}{
		{"POST", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + good, 405, [2]string{}},
		{"HTTP/1.0", "GET / HTTP/1.0\r\nHost: x\r\n" + good, 400, [2]string{}},
		{"no Upgrade", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n" + key, 400, [2]string{}},
		{"no Connection upgrade", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: close\r\nSec-WebSocket-Version: 13\r\n" + key, 400, [2]string{}},
		{"version 8", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n" + key, 426, [2]string{"Sec-WebSocket-Version", "13"}},
		{"short key", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: AAAA\r\n", 400, [2]string{}},
		{"another origin", "GET / HTTP/1.1\r\nHost: x\r\nOrigin: http://elsewhere\r\n" + good, 403, [2]string{}},
		{"same origin", "GET / HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\nSec-WebSocket-Protocol: chat, superchat\r\n" + good, 101, [2]string{"Sec-WebSocket-Protocol", "superchat"}},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, r := range routes {
			rec := newRecorder()
			srv := echoServer(rec)
			srv.Subprotocols = []string{"superchat", "chat"}
			addr := serveWS(t, l, srv, r)
			for _, c := range cases {
				t.Run(r.String()+"/"+c.name, func(t *testing.T) {
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					defer conn.Close()
					conn.SetDeadline(time.Now().Add(hangGuard))
					fmt.Fprintf(conn, "%s\r\n", c.req)
					resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
					if err != nil {
						t.Fatal(err)
					}
					if resp.StatusCode != c.status || c.header[0] != "" && resp.Header.Get(c.header[0]) != c.header[1] {
						t.Errorf("%s %v, want %d and %v", resp.Status, resp.Header, c.status, c.header)
					}
					if c.status == 101 {
						if oc := rec.conn(t); oc.Subprotocol() != "superchat" {
							t.Errorf("Subprotocol() = %q", oc.Subprotocol())
						}
					}
				})
			}
			// The handshakes were answered in turn: a conn a refused one had
			// opened would be here by now.
			if n := len(rec.opened); n > 0 {
				t.Errorf("%s: %d conns opened by refused handshakes", r, n)
			}
		}
	})
}
