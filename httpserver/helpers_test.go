//go:build unix || windows

package httpserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/revoltgo/eventloop/socket"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// The loops of the tests (package testloop): a subtest per driver, each
// with a fresh loop, run by a goroutine where the test needs it.
var (
	drivers    = testloop.Drivers
	eachDriver = testloop.EachDriver
	watchdog   = testloop.Watchdog
	runLoop    = func(t testing.TB, l *core.Loop) { testloop.Run(t, l) }
)

// testServer is a Server on a loop run by a goroutine, with what the
// tests look at: its log and its connections' states.
type testServer struct {
	srv  *Server
	l    *core.Loop
	ln   *socket.Listener
	url  string // http://127.0.0.1:port
	addr string
	log  *testlog.Buffer

	mu     sync.Mutex
	states map[net.Conn][]http.ConnState
	open   atomic.Int64 // conns neither closed nor hijacked
	served chan error
}

// serve starts srv (its ErrorLog and ConnState are the test's) on l, l
// running on a goroutine. Serve is called from a goroutine, so it waits
// while that goroutine runs the loop; the server is closed, and Serve's
// return checked, when the test ends.
func serve(t testing.TB, l *core.Loop, srv *Server) *testServer {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	runLoop(t, l)
	ts := &testServer{srv: srv, l: l, ln: ln, addr: ln.Addr().String(), log: &testlog.Buffer{},
		states: map[net.Conn][]http.ConnState{}, served: make(chan error, 1)}
	ts.url = "http://" + ts.addr
	if srv.ErrorLog == nil {
		srv.ErrorLog = log.New(ts.log, "", 0)
	}
	hook := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		ts.mu.Lock()
		ts.states[c] = append(ts.states[c], st)
		ts.mu.Unlock()
		switch st {
		case http.StateNew:
			ts.open.Add(1)
		case http.StateClosed, http.StateHijacked:
			ts.open.Add(-1)
		}
		if hook != nil {
			hook(c, st)
		}
	}
	go func() { ts.served <- srv.Serve(l, ln) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
		select {
		case err := <-ts.served:
			if !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after Close")
		}
	})
	return ts
}

// connsOpened is how many connections reached StateNew.
func (ts *testServer) connsOpened() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.states)
}

// waitOpen waits until n connections are open (not closed nor hijacked).
func (ts *testServer) waitOpen(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for ts.open.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", ts.open.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// client is an http.Client with a Transport of its own, whose idle
// connections close when the test ends.
func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// fiberSleep suspends the calling fiber of l for d.
func fiberSleep(l *core.Loop, d time.Duration) {
	s := l.Suspension()
	l.Delay(d, func(core.CallbackID) { s.Resume(nil) })
	s.Suspend()
}

// hello is the 13-byte handler of the benchmarks.
var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("Hello, World!"))
})

// rawConn is a plain TCP connection to the server, for requests no
// client library would send.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

func (rc *rawConn) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(rc, s); err != nil {
		t.Fatal(err)
	}
}

// response reads one response (method is the request's, for HEAD).
func (rc *rawConn) response(t *testing.T, method string) *http.Response {
	t.Helper()
	resp, err := http.ReadResponse(rc.r, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading a response body: %v", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// closed reports whether the server closed the connection: the next
// read ends the stream (or is reset) within d, with no byte.
func (rc *rawConn) closed(d time.Duration) (bool, string) {
	rc.SetReadDeadline(time.Now().Add(d))
	defer rc.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := rc.r.ReadByte()
	if err == nil {
		rest, _ := rc.r.Peek(rc.r.Buffered())
		return false, "got bytes: " + string(b) + string(rest)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false, "still open after " + d.String()
	}
	return true, ""
}

func bodyString(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// discardLog is an ErrorLog for servers whose log no test reads.
var discardLog = log.New(io.Discard, "", 0)

// dialTCP connects to addr and closes the connection at once.
func dialTCP(addr string) (struct{}, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return struct{}{}, err
}
