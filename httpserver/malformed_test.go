//go:build unix || windows

package httpserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Malformed input from a raw socket: each request goes to our server and
// to net/http's with the same handler and limits, and ours must give
// what net/http gives (the status, or no answer) and close the
// connection, as net/http does.

// stdServe runs net/http's server on a loopback port until the test ends.
func stdServe(t testing.TB, h http.Handler, configure func(*http.Server)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ErrorLog: discardLog}
	if configure != nil {
		configure(srv)
	}
	// Close does not wait for the connections' goroutines, which may
	// linger in closeWriteAndWait for half a second: counted here, so
	// that the leak check after the last test does not find them.
	var conns sync.WaitGroup
	hook := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.Done()
		}
		if hook != nil {
			hook(c, s)
		}
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Close(); <-done; conns.Wait() })
	return ln.Addr().String()
}

// outcome is what a raw client saw: the status of the first response (0
// for none) and whether the server closed the connection after it.
type outcome struct {
	status int
	closed bool
}

// exchange sends req on a fresh connection (on a goroutine: a server
// that answers before reading all of it must not block the test) and
// reads what comes back.
func exchange(t *testing.T, addr, req string, pace time.Duration) outcome {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan struct{})
	defer func() { c.Close(); <-wrote }()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		defer close(wrote)
		if pace == 0 {
			io.WriteString(c, req)
			return
		}
		for i := range len(req) {
			if _, err := c.Write([]byte{req[i]}); err != nil {
				return
			}
			time.Sleep(pace)
		}
	}()
	br := bufio.NewReader(c)
	var o outcome
	if resp, err := http.ReadResponse(br, nil); err == nil {
		o.status = resp.StatusCode
		io.Copy(io.Discard, resp.Body)
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	o.closed = err != nil && !(errors.As(err, &ne) && ne.Timeout())
	return o
}

// limitHandler reads the body through http.MaxBytesReader (1 KiB) and
// answers 413 when it is larger, as a handler limiting uploads does.
var limitHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<10))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		return
	}
	io.WriteString(w, "ok")
})

var malformed = []struct {
	name string
	req  string
	want int // what net/http gives, checked against it
	// ours differs from net/http on purpose (the comment at readRequest
	// says why): our status then.
	ours int
}{
	{"bad request line", "GARBAGE\r\n\r\n", 400, 0},
	{"bad method", "G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, 0},
	{"bad version", "GET / HTTP/1.x\r\nHost: x\r\n\r\n", 400, 0},
	{"HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, 0},
	{"HTTP/3.0", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505, 0},
	{"header over the limit", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 431, 0},
	{"many headers over the limit", "GET / HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-A: b\r\n", 2000) + "\r\n", 431, 0},
	{"no Host", "GET / HTTP/1.1\r\n\r\n", 400, 0},
	{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, 0},
	{"bad Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, 0},
	{"bad header name", "GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n", 400, 0},
	{"bad header value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\x01b\r\n\r\n", 400, 0},
	{"invalid Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, 0},
	{"negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400, 0},
	{"two Content-Lengths", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, 0},
	{"Content-Length and chunked", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 200, 400},
	{"Content-Length and chunked, lines ended by LF alone", "POST / HTTP/1.1\nHost: x\nContent-Length: 3\nTransfer-Encoding: chunked\n\n3\r\nabc\r\n0\r\n\r\n", 200, 400},
	{"chunked and an empty Content-Length, last", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length:\r\n\r\n0\r\n\r\n", 400, 0},
	{"chunked, a chunk like a Content-Length field", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n12\r\ncontent-length: 99\r\n0\r\n\r\n", 200, 0},
	{"invalid Content-Length and chunked", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, 0},
	{"unknown Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, 0},
	{"two Transfer-Encodings", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501, 0},
	{"bad chunk", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 200, 0}, // the handler's answer
	{"body over MaxBytesReader", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n" + strings.Repeat("a", 4096), 413, 0},
	{"Expect other than 100-continue", "GET / HTTP/1.1\r\nHost: x\r\nExpect: coffee\r\n\r\n", 417, 0},
}

func TestMalformed(t *testing.T) {
	watchdog(t, 2*time.Minute)
	limits := func(s *http.Server) { s.MaxHeaderBytes = 1 << 10 }
	std := stdServe(t, limitHandler, limits)
	want := make([]outcome, len(malformed))
	for i, m := range malformed {
		want[i] = exchange(t, std, m.req, 0)
		if want[i].status != m.want || want[i].closed != (m.ours == 0) {
			t.Errorf("%s: net/http gave %d (closed %v), the table says %d: update the table", m.name, want[i].status, want[i].closed, m.want)
		}
		if m.ours != 0 {
			want[i] = outcome{m.ours, true}
		}
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: limitHandler, MaxHeaderBytes: 1 << 10})
		for i, m := range malformed {
			if got := exchange(t, ts.addr, m.req, 0); got != want[i] {
				t.Errorf("%s: got %+v, want %+v", m.name, got, want[i])
			}
		}
		// The server goes on serving, and every connection was let go.
		if o := exchange(t, ts.addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0); o.status != 200 {
			t.Errorf("a good request after the bad ones: %+v", o)
		}
		ts.waitOpen(t, 0)
		if strings.Contains(ts.log.String(), "panic") {
			t.Errorf("log: %s", ts.log)
		}
	})
}

// Slowloris: a client that sends its header one byte a second is cut off
// when ReadHeaderTimeout passes, without an answer, as net/http does.
func TestSlowloris(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const timeout = time.Second
	req := "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("z", 30) + "\r\n\r\n"
	std := stdServe(t, hello, func(s *http.Server) { s.ReadHeaderTimeout = timeout })
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello, ReadHeaderTimeout: timeout})
		results := make(chan outcome, 2)
		start := time.Now()
		for _, addr := range []string{std, ts.addr} {
			go func() { results <- exchange(t, addr, req, time.Second) }()
		}
		a, b := <-results, <-results
		// net/http answers 400 to the part of a header that the timeout
		// cut (a malformed header), and closes.
		if !a.closed || a != b {
			t.Errorf("got %+v and %+v, want the same, closed", a, b)
		}
		// The client's header needs ~50 s; both gave up long before.
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("cut off after %v", d)
		}
		ts.waitOpen(t, 0)
	})
}

// ReadHeaderTimeout counts for every request of a connection, not only
// its first: a client that sends a request, then the start of another
// and no more, is cut off when it passes, long before IdleTimeout, as by
// net/http's server.
func TestReadHeaderTimeoutOfALaterRequest(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const timeout = 300 * time.Millisecond
	std := stdServe(t, hello, func(s *http.Server) { s.ReadHeaderTimeout, s.IdleTimeout = timeout, time.Minute })
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello, ReadHeaderTimeout: timeout, IdleTimeout: time.Minute})
		for _, addr := range []string{std, ts.addr} {
			rc := dialRaw(t, addr)
			rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
				t.Fatalf("%s: the first response: %q", addr, got)
			}
			rc.send(t, "GET / HTTP/1.1\r\nHo")
			rc.SetReadDeadline(time.Now().Add(5 * time.Second)) // IdleTimeout is a minute
			if _, err := io.ReadAll(rc.r); err != nil {
				t.Errorf("%s: the second request's header not cut off: %v", addr, err)
			}
		}
	})
}
