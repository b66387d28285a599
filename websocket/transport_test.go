//go:build unix || windows

package websocket

import (
	"crypto/tls"
	"net/http"
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
