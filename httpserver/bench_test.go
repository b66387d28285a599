//go:build unix || windows

package httpserver

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
)

// The hot path, for go test -bench and benchstat: keep-alive requests of
// wrk's shape for the 13-byte handler, one at a time or 16 pipelined on
// one connection, from a raw client that allocates nothing, so that
// allocs/op is the server's. BenchmarkNetHTTPHello is net/http's server under the same
// client.

const benchRequest = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"

// roundTrips sends b.N requests on a connection to addr, depth at a
// time, each batch after the previous one's responses: with depth 1 a
// ping-pong, with more the server's work per request with its system
// calls shared by depth requests.
func roundTrips(b *testing.B, addr string, depth int) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	roundTrip := helloRoundTrip(b, c, depth)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += depth {
		roundTrip()
	}
	b.StopTimer()
}

// helloRoundTrip returns a func that sends depth requests of wrk's shape
// on c in one write and reads their responses, allocating nothing.
func helloRoundTrip(tb testing.TB, c net.Conn, depth int) func() {
	req := bytes.Repeat([]byte(benchRequest), depth)
	buf := make([]byte, 64<<10)
	end := []byte("\r\n\r\nHello, World!")
	return func() {
		if _, err := c.Write(req); err != nil {
			tb.Fatal(err)
		}
		n := 0
		for bytes.Count(buf[:n], end) < depth {
			m, err := c.Read(buf[n:])
			if err != nil {
				tb.Fatal(err)
			}
			n += m
		}
	}
}

func benchLoop(b *testing.B) *core.Loop {
	l, err := eventloop.NewWithDriver("epoll")
	if err != nil {
		l, err = eventloop.New()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { l.Close() }) // after serve's cleanups
	return l
}

func BenchmarkHelloPipelined(b *testing.B) {
	ts := serve(b, benchLoop(b), &Server{Handler: http.HandlerFunc(helloString)})
	roundTrips(b, ts.addr, 16)
}

func BenchmarkNetHTTPHelloPipelined(b *testing.B) {
	roundTrips(b, stdServe(b, http.HandlerFunc(helloString), nil), 16)
}

// helloString is the benchmark command's handler.
func helloString(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") }

func BenchmarkHello(b *testing.B) {
	ts := serve(b, benchLoop(b), &Server{Handler: http.HandlerFunc(helloString)})
	roundTrips(b, ts.addr, 1)
}

func BenchmarkNetHTTPHello(b *testing.B) {
	roundTrips(b, stdServe(b, http.HandlerFunc(helloString), nil), 1)
}
