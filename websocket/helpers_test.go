//go:build unix || windows

package websocket

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/revoltgo/eventloop/socket"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

var (
	drivers  = testloop.Drivers
	watchdog = testloop.Watchdog
)

// hangGuard bounds a wait that would otherwise hang: no passing run comes
// near it.
const hangGuard = 30 * time.Second

// eachDriver runs f per driver with a fresh loop run by a goroutine,
// checking that the case leaves no goroutine and no descriptor behind. Its
// hang guard is per driver: under Wine one driver's case can take a minute.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			watchdog(t, 2*time.Minute)
			testloop.NoLeaks(t)
			l := testloop.New(t, name)
			testloop.Run(t, l)
			f(t, l)
		})
	}
}

// route says how a test server upgrades: from an httpserver route, or on
// a socket.Listener of its own.
type route int

const (
	viaHTTP route = iota
	viaListener
)

func (r route) String() string { return [...]string{"httpserver", "listener"}[r] }

var routes = []route{viaHTTP, viaListener}

// serveWS serves srv on l by route r and returns its address; the server
// stops when the test ends, and its Serve must return as it should.
func serveWS(t *testing.T, l *core.Loop, srv *Server, r route) string {
	t.Helper()
	if r == viaHTTP {
		return serveHandler(t, l, srv)
	}
	ln := listen(t, l)
	return serving(t, ln, func() error { return srv.Serve(l, ln) }, ln.Close)
}

// serveHandler serves h on l with httpserver, as serveWS does, and fails
// the test if httpserver logged anything.
func serveHandler(t *testing.T, l *core.Loop, h http.Handler) string {
	t.Helper()
	ln := listen(t, l)
	var logged testlog.Buffer
	hs := &httpserver.Server{Handler: h, ErrorLog: log.New(&logged, "", 0)}
	return serving(t, ln, func() error { return hs.Serve(l, ln) }, func() error {
		err := hs.Close()
		if s := logged.String(); s != "" {
			t.Errorf("httpserver logged:\n%s", s)
		}
		return err
	})
}

func listen(t *testing.T, l *core.Loop) *socket.Listener {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// serving runs serve on a goroutine until the test ends, then stops it
// and checks that serve returned as a closed server's Serve does.
func serving(t *testing.T, ln *socket.Listener, serve, stop func() error) string {
	served := make(chan error, 1)
	go func() { served <- serve() }()
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stopping the server: %v", err)
		}
		select {
		case err := <-served:
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve returned %v", err)
			}
		case <-time.After(hangGuard):
			t.Errorf("Serve did not return")
		}
	})
	return ln.Addr().String()
}

// message is what OnMessage got.
type message struct {
	typ MessageType
	p   string
}

// recorder collects a conn's messages and its end, for a test's
// goroutine to wait on.
type recorder struct {
	msgs   chan message
	closed chan *CloseError
	opened chan *Conn
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan message, 1024), closed: make(chan *CloseError, 64), opened: make(chan *Conn, 64)}
}

func (r *recorder) onMessage(c *Conn, typ MessageType, p []byte) { r.msgs <- message{typ, string(p)} }
func (r *recorder) onClose(c *Conn, err *CloseError)             { r.closed <- err }

func (r *recorder) message(t *testing.T) message {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(hangGuard):
		t.Fatal("no message came")
	}
	return message{}
}

func (r *recorder) close(t *testing.T) *CloseError {
	t.Helper()
	select {
	case e := <-r.closed:
		return e
	case <-time.After(hangGuard):
		t.Fatal("the conn did not close")
	}
	return nil
}

func (r *recorder) conn(t *testing.T) *Conn {
	t.Helper()
	select {
	case c := <-r.opened:
		return c
	case <-time.After(hangGuard):
		t.Fatal("no conn opened")
	}
	return nil
}

// echoServer echoes every message and records each conn's end.
func echoServer(rec *recorder) *Server {
	return &Server{
		OnOpen: func(c *Conn, r *http.Request) { rec.opened <- c },
		Options: Options{
			OnMessage: func(c *Conn, typ MessageType, p []byte) { c.WriteMessage(typ, p) },
			OnClose:   rec.onClose,
		},
	}
}

// rawClient is a client that speaks frames written by hand.
type rawClient struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

// dialRaw does a handshake to addr with the extra header lines ext
// ("Name: value\r\n" each) and returns the client and the response's
// header.
func dialRaw(t *testing.T, addr, ext string) (*rawClient, http.Header) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return handshakeRaw(t, c, addr, ext)
}

// handshakeRaw is dialRaw's handshake, over c, which is closed when the
// test ends.
func handshakeRaw(t *testing.T, c net.Conn, addr, ext string) (*rawClient, http.Header) {
	t.Helper()
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(hangGuard))
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n%s\r\n", addr, ext)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %s %v", resp.Status, resp.Header)
	}
	return &rawClient{t: t, c: c, br: br}, resp.Header
}

// frame is a frame as written or read by hand.
type frame struct {
	fin    bool
	rsv    byte
	op     opcode
	p      []byte
	masked bool
	length uint64 // if non-zero, the length written instead of len(p)
}

func (f frame) bytes() []byte {
	b0 := byte(f.op) | f.rsv<<4
	if f.fin {
		b0 |= 0x80
	}
	n := uint64(len(f.p))
	if f.length != 0 {
		n = f.length
	}
	var m byte
	if f.masked {
		m = 0x80
	}
	b := []byte{b0}
	switch {
	case n > 0xffff:
		b = append(b, m|127)
		b = binary.BigEndian.AppendUint64(b, n)
	case n > 125:
		b = append(b, m|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, m|byte(n))
	}
	p := append([]byte(nil), f.p...)
	if f.masked {
		key := [4]byte{0x12, 0x34, 0x56, 0x78}
		b = append(b, key[:]...)
		mask(key, 0, p)
	}
	return append(b, p...)
}

// client frames are masked and final unless said otherwise.
func cf(op opcode, p string) frame { return frame{fin: true, op: op, p: []byte(p), masked: true} }

func (r *rawClient) send(fs ...frame) {
	r.t.Helper()
	var b []byte
	for _, f := range fs {
		b = append(b, f.bytes()...)
	}
	if _, err := r.c.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

// read reads a frame; err at the end of the stream.
func (r *rawClient) read() (frame, error) {
	var h [2]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		return frame{}, err
	}
	f := frame{fin: h[0]&0x80 != 0, rsv: h[0] >> 4 & 7, op: opcode(h[0] & 0xf), masked: h[1]&0x80 != 0}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r.br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r.br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	if f.masked {
		return f, errors.New("a masked frame from the server")
	}
	f.p = make([]byte, n)
	_, err := io.ReadFull(r.br, f.p)
	return f, err
}

// closeCode reads frames until a close frame and returns its code (1005
// if none), then checks that the server closes the TCP conn.
func (r *rawClient) closeCode() int {
	r.t.Helper()
	for {
		f, err := r.read()
		if err != nil {
			r.t.Fatalf("no close frame: %v", err)
		}
		if f.op != opClose {
			continue
		}
		code := CloseNoStatus
		if len(f.p) >= 2 {
			code = int(binary.BigEndian.Uint16(f.p))
		}
		if _, err := r.br.ReadByte(); err != io.EOF {
			r.t.Errorf("after the close frame: %v, want the end of the stream", err)
		}
		return code
	}
}

// silentListener is a listener of net's that accepts and never answers;
// its conns close when the test ends.
func silentListener(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// serveHTTPOn serves h by an httpserver.Server on ln until ln is closed.
func serveHTTPOn(l *core.Loop, ln *socket.Listener, h http.Handler) error {
	return (&httpserver.Server{Handler: h}).Serve(l, ln)
}
