//go:build unix || windows

package websocket

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/testcert"
	"github.com/revoltgo/eventloop/socket"
)

// echoOnce sends a message and a ping, expects the echo and the pong,
// then closes with 1000 and expects the server to answer and OnClose to
// see it.
func echoOnce(t *testing.T, rc *rawClient, rec *recorder) {
	t.Helper()
	rc.send(frame{op: opText, masked: true, p: []byte("frag")}, cf(opPing, "p"),
		frame{fin: true, op: opContinuation, masked: true, p: []byte("ments")})
	for _, want := range []string{"pong:p", "text:fragments"} {
		f, err := rc.read()
		if err != nil || f.op.String()+":"+string(f.p) != want {
			t.Fatalf("%v %q %v, want %s", f.op, f.p, err, want)
		}
	}
	rc.send(cf(opClose, "\x03\xe8"))
	if code := rc.closeCode(); code != CloseNormal {
		t.Errorf("close %d", code)
	}
	if e := rec.close(t); e.Code != CloseNormal || !e.Remote {
		t.Errorf("OnClose %+v", e)
	}
}

// Over TLS (httpserver's ServeTLS) the hijacked conn is a
// *socket.TLSConn, which cannot be served: a fiber reads it, and the
// conn works as any other.
func TestOverTLS(t *testing.T) {
	cert, err := testcert.New(time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs := &httpserver.Server{Handler: echoServer(rec), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert.TLS}}}
		served := make(chan error, 1)
		go func() { served <- hs.ServeTLS(l, ln, "", "") }()
		defer func() { hs.Close(); <-served }()
		addr := ln.Addr().String()
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: cert.Pool, ServerName: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		rc, _ := handshakeRaw(t, c, addr, "")
		rec.conn(t)
		echoOnce(t, rc, rec)
	})
}

// The client over TLS (wss://): it verifies the server with
// Dialer.TLSConfig (ServerName from the URL when the config has none),
// and its conn works as a ws:// one, compressed too; a server it does
// not trust fails the Dial with the TLS error.
func TestDialTLS(t *testing.T) {
	cert, err := testcert.New(time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.Compression = true
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// The Dial that does not trust the server makes it log a failed
		// handshake.
		mux := http.NewServeMux()
		mux.Handle("/", srv)
		mux.Handle("/refused", http.NotFoundHandler())
		hs := &httpserver.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert.TLS}},
			ErrorLog: log.New(io.Discard, "", 0)}
		served := make(chan error, 1)
		go func() { served <- hs.ServeTLS(l, ln, "", "") }()
		defer func() { hs.Close(); <-served }()
		url := "wss://" + ln.Addr().String() + "/"

		if _, _, err := (&Dialer{}).Dial(context.Background(), l, url); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("Dial to a server the system does not trust: %v, want a certificate error", err)
		}
		crec := newRecorder()
		d := &Dialer{Options: Options{OnMessage: crec.onMessage, OnClose: crec.onClose, Compression: true},
			TLSConfig: &tls.Config{RootCAs: cert.Pool}}
		// A handshake refused over TLS: the response comes with the error,
		// and with the conn's TLS state.
		if _, resp, err := d.Dial(context.Background(), l, url+"refused"); err == nil || resp == nil ||
			resp.StatusCode != http.StatusNotFound || resp.TLS == nil {
			t.Fatalf("Dial to a route that refuses: %v, response %v; want an error, and a 404 with its TLS state", err, resp)
		}
		c, resp, err := d.Dial(context.Background(), l, url)
		if err != nil {
			t.Fatal(err)
		}
		if d.TLSConfig.ServerName != "" {
			t.Errorf("Dial set the caller's TLSConfig.ServerName to %q", d.TLSConfig.ServerName)
		}
		if resp.TLS == nil || !c.Compressed() {
			t.Errorf("response TLS state %v, compressed %v; want both", resp.TLS, c.Compressed())
		}
		if _, ok := c.NetConn().(*socket.TLSConn); !ok {
			t.Errorf("the conn's transport is %T, want *socket.TLSConn", c.NetConn())
		}
		rec.conn(t)
		for i := range 3 {
			msg := strings.Repeat(fmt.Sprint(i), 1000)
			if err := c.WriteMessage(Text, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			if m := crec.message(t); m.p != msg {
				t.Fatalf("echo %d: %.20q, want %.20q", i, m.p, msg)
			}
		}
		c.Close(CloseNormal, "")
		if e := crec.close(t); e.Code != CloseNormal {
			t.Errorf("the client's OnClose %+v", e)
		}
		if e := rec.close(t); e.Code != CloseNormal || !e.Remote {
			t.Errorf("the server's OnClose %+v", e)
		}
	})
}

// A handler around ServeHTTP that suspends after it, while the conn is
// still httpserver's served conn: the upgraded conn cannot be served
// yet, and is read by a fiber instead.
func TestSuspendAfterUpgrade(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			srv.ServeHTTP(w, r)
			s := l.Suspension()
			l.Delay(time.Millisecond, func(core.CallbackID) { s.Resume(nil) })
			s.Suspend()
		})
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- serveHTTPOn(l, ln, h) }()
		defer func() { ln.Close(); <-served }()
		rc, _ := dialRaw(t, ln.Addr().String(), "")
		rec.conn(t)
		echoOnce(t, rc, rec)
	})
}

// Server.HandshakeTimeout closes a conn whose handshake does not come;
// one that comes in time is not bounded afterwards. In time is 250 ms
// from the accept, room for a loaded machine under Wine.
func TestHandshakeTimeout(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rec := newRecorder()
		srv := echoServer(rec)
		srv.HandshakeTimeout = 250 * time.Millisecond
		addr := serveWS(t, l, srv, viaListener)
		silent, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
		rc, _ := dialRaw(t, addr, "")
		rec.conn(t)
		silent.SetDeadline(time.Now().Add(hangGuard))
		if n, err := silent.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("read %d bytes, %v from a conn that sent no handshake, want the end of the stream", n, err)
		}
		echoOnce(t, rc, rec) // well past the timeout, read after it
	})
}

// A callback that panics (OnMessage here, OnOpen alike) ends its conn:
// it is closed, OnClose says so, and the panic goes to the loop's error
// handler, as a socket.Handler's does; the other conns go on.
func TestCallbackPanics(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		uncaught := make(chan error, 4)
		set := make(chan struct{})
		l.Post(func() { l.SetErrorHandler(func(err error) { uncaught <- err }); close(set) })
		<-set
		for _, r := range routes {
			t.Run(r.String(), func(t *testing.T) {
				rec := newRecorder()
				srv := echoServer(rec)
				srv.OnMessage = func(c *Conn, typ MessageType, p []byte) {
					if string(p) == "boom" {
						panic("boom")
					}
					c.WriteMessage(typ, p)
				}
				addr := serveWS(t, l, srv, r)
				bad, _ := dialRaw(t, addr, "")
				rec.conn(t)
				good, _ := dialRaw(t, addr, "")
				rec.conn(t)
				bad.send(cf(opText, "boom"))
				if _, err := bad.read(); err == nil {
					t.Error("the conn whose OnMessage panicked is still open")
				}
				if e := rec.close(t); e.Code != CloseAbnormal || !strings.Contains(e.Reason, "panicked") {
					t.Errorf("OnClose %+v", e)
				}
				select {
				case err := <-uncaught:
					if !strings.Contains(err.Error(), "boom") {
						t.Errorf("the loop's error handler got %v", err)
					}
				case <-time.After(hangGuard):
					t.Error("the panic did not reach the loop's error handler")
				}
				echoOnce(t, good, rec)
			})
		}
	})
}
