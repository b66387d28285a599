//go:build unix || windows

package interop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/revoltgo/eventloop/socket"
)

func TestMain(m *testing.M) {
	// TestStallsLoop's parallel cases spend 5 s each waiting, not
	// computing: run them all at once, not GOMAXPROCS at a time, unless
	// -test.parallel says otherwise.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "16")
	}
	// The runtime's poller opens its descriptors with the first net
	// socket: open them now, so that the first case's count of
	// descriptors does not see them come.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	leakcheck.Main(m)
}

// hangGuard bounds every wait of a test that would otherwise hang: a
// deadline no passing run comes near, not a measure.
const hangGuard = 30 * time.Second

// Socket buffers of the server's conns (SO_SNDBUF) and the clients'
// (SO_RCVBUF): small, so that a 1 MiB message cannot fit in what the
// kernel holds between the two ends and the server's writes wait on a
// client that does not read.
const (
	serverSendBuffer    = 16 << 10
	clientReceiveBuffer = 16 << 10
	bigMessage          = 1 << 20
)

// eachDriver runs f as a subtest per driver with a fresh loop, closed
// after f and everything f registered for cleanup; then it checks that
// the case left no goroutine and no descriptor behind.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	forDrivers(t, func(t *testing.T, name string) { f(t, newLoop(t, name)) })
}

// forDrivers runs f as a subtest per driver, checked as eachDriver's;
// f makes its own loop (newLoop), with the options it needs.
func forDrivers(t *testing.T, f func(t *testing.T, name string)) {
	t.Helper()
	testloop.Watchdog(t, 2*time.Minute)
	for _, name := range testloop.Drivers() {
		t.Run(name, func(t *testing.T) {
			testloop.NoLeaks(t)
			f(t, name)
		})
	}
}

var (
	newLoop = testloop.New
	runLoop = func(t testing.TB, l *core.Loop) { testloop.Run(t, l) }
)

// wsServer is an httpserver.Server on a loop run by a goroutine, serving
// one handler, and what the tests look at: when its handlers return, and
// its log.
type wsServer struct {
	l    *core.Loop
	srv  *httpserver.Server
	addr string // 127.0.0.1:port
	url  string // ws://127.0.0.1:port/
	log  *testlog.Buffer

	returned chan struct{} // a value each time a handler returns
	served   chan error
}

// serve serves h on l (run by a goroutine until the test ends) with the
// server's send buffers small (serverSendBuffer). The server is closed,
// and Serve's return checked, when the test ends; so is its log, which
// must be empty: a handler that panicked fails the test.
func serve(t *testing.T, l *core.Loop, h http.HandlerFunc) *wsServer {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	runLoop(t, l)
	ts := &wsServer{l: l, addr: ln.Addr().String(), log: &testlog.Buffer{},
		returned: make(chan struct{}, 64), served: make(chan error, 1)}
	ts.url = "ws://" + ts.addr + "/"
	ts.srv = &httpserver.Server{
		ReadHeaderTimeout: hangGuard,
		ErrorLog:          log.New(ts.log, "", 0),
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				c.(*socket.Conn).SetWriteBuffer(serverSendBuffer)
			}
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A send on a buffered channel with room: never waits.
			defer func() { ts.returned <- struct{}{} }()
			h(w, r)
		}),
	}
	go func() { ts.served <- ts.srv.Serve(l, ln) }()
	t.Cleanup(func() {
		if err := ts.srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
		select {
		case err := <-ts.served:
			if !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
			}
		case <-time.After(hangGuard):
			t.Errorf("Serve did not return after Close")
		}
		if s := ts.log.String(); s != "" {
			t.Errorf("the server logged:\n%s", s)
		}
	})
	return ts
}

// waitReturned waits until n more handlers have returned.
func (ts *wsServer) waitReturned(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-ts.returned:
		case <-time.After(hangGuard):
			t.Fatalf("a handler did not return")
		}
	}
}

// recv receives from ch, or fails the test after hangGuard.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("nothing received in %v", hangGuard)
		panic("unreachable")
	}
}

// smallBufferDial dials as net.Dialer does and makes the conn's receive
// buffer small (clientReceiveBuffer).
func smallBufferDial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(network, address string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) { err = setReceiveBuffer(fd, clientReceiveBuffer) }); cerr != nil {
			return cerr
		}
		return err
	}}
	return d.DialContext(ctx, network, addr)
}

// dialGorilla connects gorilla's client to url; the conn is closed when
// the test ends, and every call on it fails after hangGuard.
func dialGorilla(t *testing.T, url string) *gorilla.Conn {
	t.Helper()
	d := gorilla.Dialer{NetDialContext: smallBufferDial, HandshakeTimeout: hangGuard}
	c, resp, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("gorilla Dial: %v", err)
	}
	resp.Body.Close()
	t.Cleanup(func() { c.Close() })
	c.NetConn().SetDeadline(time.Now().Add(hangGuard))
	return c
}

// dialCoder connects coder's client to url with a Transport of its own;
// the conn is closed when the test ends. ctx (of the test, ended after
// hangGuard) is the one to pass to its calls.
func dialCoder(t *testing.T, url string, opts *coder.DialOptions) (*coder.Conn, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	tr := &http.Transport{DialContext: smallBufferDial}
	t.Cleanup(tr.CloseIdleConnections)
	if opts == nil {
		opts = &coder.DialOptions{}
	}
	opts.HTTPClient = &http.Client{Transport: tr}
	c, _, err := coder.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("coder Dial: %v", err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { c.CloseNow() })
	return c, ctx
}

// payload returns n bytes: for a text message printable ASCII, for a
// binary one every byte value, from a seed, the same for a seed each run.
// The slice is shared: callers must not modify it.
func payload(typ int, n int, seed uint64) []byte {
	key := [3]uint64{uint64(typ), uint64(n), seed}
	payloads.Lock()
	defer payloads.Unlock()
	if b, ok := payloads.m[key]; ok {
		return b
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := i; j < min(i+8, n); j++ {
			if typ == gorilla.TextMessage {
				b[j] = ' ' + byte(v%95)
				v /= 95
			} else {
				b[j] = byte(v)
				v >>= 8
			}
		}
	}
	payloads.m[key] = b
	return b
}

var payloads = struct {
	sync.Mutex
	m map[[3]uint64][]byte
}{m: map[[3]uint64][]byte{}}

// upgradeRequest is a WebSocket upgrade of / as a client sends it.
func upgradeRequest(host string) string {
	return "GET / HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
}

// rawClient is a plain TCP conn to a server, for what no client library
// sends.
type rawClient struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(hangGuard))
	return &rawClient{Conn: c, r: bufio.NewReader(c)}
}

// response sends req and reads the response, body included.
func (rc *rawClient) response(t *testing.T, req string) (*http.Response, []byte) {
	t.Helper()
	if _, err := io.WriteString(rc, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	var body []byte
	if resp.StatusCode != http.StatusSwitchingProtocols {
		if body, err = io.ReadAll(resp.Body); err != nil {
			t.Fatalf("reading a response body: %v", err)
		}
	}
	resp.Body.Close()
	return resp, body
}

// rest reads what the server sends until it closes the conn, and how the
// stream ended.
func (rc *rawClient) rest() ([]byte, error) {
	b, err := io.ReadAll(rc.r)
	return b, err
}

// clientFrame is a masked frame of a client: opcode (with FIN), and a
// length field that claims length bytes, followed by body.
func clientFrame(opcode byte, length uint64, body []byte) []byte {
	var f bytes.Buffer
	f.WriteByte(0x80 | opcode)
	switch {
	case length < 126:
		f.WriteByte(0x80 | byte(length))
	case length <= 0xffff:
		f.WriteByte(0x80 | 126)
		f.Write([]byte{byte(length >> 8), byte(length)})
	default:
		f.WriteByte(0x80 | 127)
		for i := 7; i >= 0; i-- {
			f.WriteByte(byte(length >> (8 * i)))
		}
	}
	f.Write([]byte{0, 0, 0, 0}) // the mask key: a zero key leaves the body as it is
	f.Write(body)
	return f.Bytes()
}

// events is a buffered channel of strings that fibers report on: a send
// with room never waits, so a fiber may send on it.
type events chan string

func newEvents() events { return make(events, 64) }

func (e events) add(format string, args ...any) {
	select {
	case e <- fmt.Sprintf(format, args...):
	default:
		panic("events: full")
	}
}

// stripAddrs replaces the addresses in an error's text (they differ
// between two servers) with "ADDR".
func stripAddrs(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if strings.Count(w, ":") >= 1 && strings.Contains(w, "127.0.0.1") {
			w = "ADDR"
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// fiber is a fiber of a loop that another fiber may wait for.
type fiber struct {
	l      *core.Loop
	done   bool
	waiter *core.Suspension
}

// startFiber runs f in a fiber of its own (a Defer of l): from the next
// tick, while the caller goes on. Call it on the loop.
func startFiber(l *core.Loop, f func()) *fiber {
	fb := &fiber{l: l}
	l.Defer(func(core.CallbackID) {
		defer func() {
			fb.done = true
			if s := fb.waiter; s != nil {
				fb.waiter = nil
				s.Resume(nil)
			}
		}()
		f()
	})
	return fb
}

// wait suspends the calling fiber until fb's function has returned.
func (fb *fiber) wait() {
	for !fb.done {
		fb.waiter = fb.l.Suspension()
		if _, err := fb.waiter.Suspend(); err != nil {
			return // the loop closes
		}
	}
}
