//go:build unix || windows

package httpserver

import (
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// TestRejectedBodyArrives: a response given to a request whose body the
// handler did not read to its end (http.MaxBytesHandler's 413, or a
// handler that answers without reading) reaches the client whole, and
// the connection then ends with a clean end of stream, not a reset, on
// every driver: the server sends the response, shuts its write side and
// reads what the client still sends before it closes. Whether the client
// asked to close or not, and over HTTP/1.0 too, whose 413 says
// Connection: close as net/http's does.
func TestRejectedBodyArrives(t *testing.T) {
	watchdog(t, 60*time.Second)
	limited := http.MaxBytesHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		io.WriteString(w, "read it all")
	}), 1<<10)
	unread := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "not reading that")
	})
	const bodyLen = 64 << 10 // within the socket buffers: the client's write completes
	cases := []struct {
		name    string
		path    string
		proto   string
		conn    string // the request's Connection header
		status  int
		respCon string // the response's Connection header
	}{
		{"413 keep-alive", "/limited", "HTTP/1.1", "", 413, "close"},
		{"413 Connection close", "/limited", "HTTP/1.1", "close", 413, "close"},
		{"413 HTTP/1.0", "/limited", "HTTP/1.0", "", 413, "close"},
		{"unread Connection close", "/unread", "HTTP/1.1", "close", 200, "close"},
		{"unread HTTP/1.0", "/unread", "HTTP/1.0", "", 200, ""},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.Handle("/limited", limited)
		mux.Handle("/unread", unread)
		ts := serve(t, l, &Server{Handler: mux})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rc := dialRaw(t, ts.addr)
				head := "POST " + tc.path + " " + tc.proto + "\r\nHost: x\r\nContent-Length: " + fmt.Sprint(bodyLen) + "\r\n"
				if tc.conn != "" {
					head += "Connection: " + tc.conn + "\r\n"
				}
				wrote := make(chan error, 1)
				go func() {
					_, err := io.WriteString(rc, head+"\r\n"+strings.Repeat("x", bodyLen))
					wrote <- err
				}()
				// Read by hand: http.ReadResponse takes "close" out of the
				// Connection header.
				tp := textproto.NewReader(rc.r)
				line, err := tp.ReadLine()
				if err != nil {
					t.Fatalf("reading the status line: %v", err)
				}
				hdr, err := tp.ReadMIMEHeader()
				if err != nil {
					t.Fatalf("reading the header: %v", err)
				}
				if want := fmt.Sprint(" ", tc.status, " "); !strings.Contains(line, want) {
					t.Errorf("status line %q, want status %d", line, tc.status)
				}
				if got := hdr.Get("Connection"); got != tc.respCon {
					t.Errorf("Connection: %q, want %q", got, tc.respCon)
				}
				n, err := strconv.Atoi(hdr.Get("Content-Length"))
				if err != nil {
					t.Fatalf("Content-Length %q: %v", hdr.Get("Content-Length"), err)
				}
				if _, err := io.ReadFull(rc.r, make([]byte, n)); err != nil {
					t.Fatalf("reading the body: %v", err)
				}
				if err := <-wrote; err != nil {
					t.Errorf("writing the request: %v", err)
				}
				// The end of the stream, not a reset: the response was
				// not cut under the client.
				rc.SetReadDeadline(time.Now().Add(10 * time.Second))
				n, err = rc.r.Read(make([]byte, 1))
				if n != 0 || err != io.EOF {
					t.Errorf("after the response: read %d bytes, %v; want the end of the stream", n, err)
				}
			})
		}
	})
}
