//go:build unix || windows

package interop

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
	"github.com/revoltgo/eventloop/websocket"
)

// The native package (websocket) against the libraries: gorilla's and
// coder's clients against its server, upgraded from an httpserver route
// and on a listener of its own, and its client against their servers on
// net/http; compressed (permessage-deflate, with and without context
// takeover where the library has it) and not, on every driver.

// nativeMessages are what each pair echoes: both types, empty, small, a
// compressible text, and 1 MiB of each type (the writes of which wait on
// the peer: the clients' receive buffers are small), which our server
// echoes in fragments, then a text that context takeover compresses with
// their window.
func nativeMessages() []struct {
	typ int
	p   []byte
} {
	return []struct {
		typ int
		p   []byte
	}{
		{text, []byte("hello")}, {binary, []byte{0, 1, 2}}, {text, nil},
		{text, []byte(strings.Repeat("compress me, ", 5000))},
		{text, payload(text, bigMessage, 1)}, {binary, payload(binary, bigMessage, 2)},
		{text, []byte(strings.Repeat("after them, compressed with their window, ", 20))},
	}
}

// nativeServer serves an echo of package websocket on l (run by a
// goroutine: runLoop), from an
// httpserver route or on a listener of its own (how), with opts; ended
// gets each conn's end.
func nativeServer(t *testing.T, l *core.Loop, how string, opts websocket.Options, ended chan<- *websocket.CloseError) string {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.OnMessage = func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
		if len(p) < 64<<10 {
			c.WriteMessage(typ, p)
			return
		}
		// The large ones go back in fragments with a ping between
		// (NextWriter), compressed conns' too.
		w, err := c.NextWriter(typ)
		if err != nil {
			panic(err)
		}
		w.Write(p[:len(p)/3])
		c.Ping([]byte("between"))
		w.Write(p[len(p)/3:])
		w.Close()
	}
	opts.OnClose = func(c *websocket.Conn, err *websocket.CloseError) { ended <- err }
	srv := &websocket.Server{Options: opts}
	served := make(chan error, 1)
	stop := ln.Close
	if how == "httpserver" {
		hs := &httpserver.Server{Handler: srv}
		go func() { served <- hs.Serve(l, ln) }()
		stop = hs.Close
	} else {
		go func() { served <- srv.Serve(l, ln) }()
	}
	t.Cleanup(func() {
		stop()
		if err := recv(t, served); !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return "ws://" + ln.Addr().String() + "/"
}

// TestNativeServer: gorilla's and coder's clients, compressed or not,
// echo through our server and close with 1000, which its OnClose sees.
func TestNativeServer(t *testing.T) {
	type client struct {
		name     string
		compress bool
		dial     func(t *testing.T, url string) (wsClient, *http.Response)
	}
	gorillaDial := func(compress bool) func(t *testing.T, url string) (wsClient, *http.Response) {
		return func(t *testing.T, url string) (wsClient, *http.Response) {
			d := gorilla.Dialer{NetDialContext: smallBufferDial, HandshakeTimeout: hangGuard, EnableCompression: compress}
			c, resp, err := d.Dial(url, nil)
			if err != nil {
				t.Fatalf("gorilla Dial: %v", err)
			}
			t.Cleanup(func() { c.Close() })
			c.SetReadLimit(-1)
			c.NetConn().SetDeadline(time.Now().Add(hangGuard))
			return &gorillaClient{c: c, pongs: newEvents()}, resp
		}
	}
	coderDial := func(mode coder.CompressionMode) func(t *testing.T, url string) (wsClient, *http.Response) {
		return func(t *testing.T, url string) (wsClient, *http.Response) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			t.Cleanup(cancel)
			tr := &http.Transport{DialContext: smallBufferDial}
			t.Cleanup(tr.CloseIdleConnections)
			c, resp, err := coder.Dial(ctx, url, &coder.DialOptions{HTTPClient: &http.Client{Transport: tr}, CompressionMode: mode})
			if err != nil {
				t.Fatalf("coder Dial: %v", err)
			}
			c.SetReadLimit(-1)
			t.Cleanup(func() { c.CloseNow() })
			return &coderClient{c: c, ctx: ctx}, resp
		}
	}
	clients := []client{
		{"gorilla", false, gorillaDial(false)},
		{"gorilla-deflate", true, gorillaDial(true)},
		{"coder", false, coderDial(coder.CompressionDisabled)},
		{"coder-deflate", true, coderDial(coder.CompressionNoContextTakeover)},
		{"coder-deflate-takeover", true, coderDial(coder.CompressionContextTakeover)},
	}
	servers := []struct {
		name string
		opts websocket.Options
	}{
		{"plain", websocket.Options{}},
		{"deflate", websocket.Options{Compression: true}},
		{"deflate-takeover", websocket.Options{Compression: true, ContextTakeover: true}},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		for _, how := range []string{"httpserver", "listener"} {
			for _, s := range servers {
				ended := make(chan *websocket.CloseError, 64)
				url := nativeServer(t, l, how, s.opts, ended)
				for _, cl := range clients {
					t.Run(how+"-"+s.name+"/"+cl.name, func(t *testing.T) {
						c, resp := cl.dial(t, url)
						ext := resp.Header.Get("Sec-WebSocket-Extensions")
						t.Logf("Sec-WebSocket-Extensions: %s", ext)
						if want := cl.compress && s.opts.Compression; strings.HasPrefix(ext, "permessage-deflate") != want {
							t.Errorf("Sec-WebSocket-Extensions %q, want compression %v", ext, want)
						}
						for i, m := range nativeMessages() {
							if err := c.write(m.typ, m.p); err != nil {
								t.Fatalf("message %d: write: %v", i, err)
							}
							typ, p, err := c.read()
							if err != nil || typ != m.typ || !bytes.Equal(p, m.p) {
								t.Fatalf("message %d: type %d, %d bytes, %v; want type %d, %d bytes", i, typ, len(p), err, m.typ, len(m.p))
							}
						}
						if code, err := c.closeHandshake(1000, "bye"); err != nil || code != 1000 {
							t.Errorf("close: %d, %v", code, err)
						}
						if e := recv(t, ended); e.Code != 1000 || e.Reason != "bye" || !e.Remote {
							t.Errorf("the server's OnClose: %+v", e)
						}
					})
				}
			}
		}
	})
}

// TestNativeClient: our client, compressed or not, over ws:// and wss://, echoes through
// gorilla's and coder's servers on net/http and closes with 1000.
func TestNativeClient(t *testing.T) {
	gorillaEcho := func(compress bool) http.HandlerFunc {
		up := gorilla.Upgrader{EnableCompression: compress}
		return func(w http.ResponseWriter, r *http.Request) {
			c, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer c.Close()
			for {
				typ, p, err := c.ReadMessage()
				if err != nil {
					if code, _ := closeOf(err); code > 0 {
						c.WriteControl(gorilla.CloseMessage, gorilla.FormatCloseMessage(code, ""), time.Now().Add(hangGuard))
					}
					return
				}
				c.WriteMessage(typ, p)
			}
		}
	}
	coderEcho := func(mode coder.CompressionMode) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			c, err := coder.Accept(w, r, &coder.AcceptOptions{CompressionMode: mode})
			if err != nil {
				return
			}
			defer c.CloseNow()
			c.SetReadLimit(-1)
			for {
				typ, p, err := c.Read(r.Context())
				if err != nil {
					return
				}
				c.Write(r.Context(), typ, p)
			}
		}
	}
	servers := []struct {
		name     string
		compress bool
		h        http.HandlerFunc
		tls      bool // wss://
	}{
		{"gorilla", false, gorillaEcho(false), false},
		{"gorilla-deflate", true, gorillaEcho(true), false},
		{"coder", false, coderEcho(coder.CompressionDisabled), false},
		{"coder-deflate", true, coderEcho(coder.CompressionNoContextTakeover), false},
		{"coder-deflate-takeover", true, coderEcho(coder.CompressionContextTakeover), false},
		{"gorilla-tls", true, gorillaEcho(true), true},
		{"coder-tls", false, coderEcho(coder.CompressionDisabled), true},
	}
	clients := []struct {
		name string
		opts websocket.Options
	}{
		{"plain", websocket.Options{}},
		{"deflate", websocket.Options{Compression: true}},
		{"deflate-takeover", websocket.Options{Compression: true, ContextTakeover: true}},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		for _, s := range servers {
			hs := httptest.NewUnstartedServer(s.h)
			var roots *x509.CertPool
			if s.tls {
				hs.StartTLS()
				roots = x509.NewCertPool()
				roots.AddCert(hs.Certificate())
			} else {
				hs.Start()
			}
			t.Cleanup(hs.Close)
			url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/"
			for _, cl := range clients {
				t.Run(s.name+"/"+cl.name, func(t *testing.T) {
					got := make(chan []byte, 1)
					ended := make(chan *websocket.CloseError, 1)
					d := &websocket.Dialer{Options: cl.opts}
					if roots != nil {
						d.TLSConfig = &tls.Config{RootCAs: roots}
					}
					d.MaxMessageSize = 2 * bigMessage
					d.OnMessage = func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
						got <- append([]byte{byte(typ)}, p...)
					}
					d.OnClose = func(c *websocket.Conn, err *websocket.CloseError) { ended <- err }
					ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
					defer cancel()
					c, resp, err := d.Dial(ctx, l, url)
					if err != nil {
						t.Fatal(err)
					}
					if want := s.compress && cl.opts.Compression; c.Compressed() != want {
						t.Errorf("compressed %v (%q), want %v", c.Compressed(), resp.Header.Get("Sec-WebSocket-Extensions"), want)
					}
					for i, m := range nativeMessages() {
						if err := c.WriteMessage(websocket.MessageType(m.typ), m.p); err != nil {
							t.Fatalf("message %d: %v", i, err)
						}
						if p := recv(t, got); int(p[0]) != m.typ || !bytes.Equal(p[1:], m.p) {
							t.Fatalf("message %d: type %d, %d bytes; want type %d, %d bytes", i, p[0], len(p)-1, m.typ, len(m.p))
						}
					}
					if err := c.Close(1000, "bye"); err != nil {
						t.Fatal(err)
					}
					if e := recv(t, ended); e.Code != 1000 || e.Remote {
						t.Errorf("OnClose: %+v", e)
					}
				})
			}
		}
	})
}
