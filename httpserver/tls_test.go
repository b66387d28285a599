//go:build unix || windows

package httpserver

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testcert"
	"github.com/revoltgo/eventloop/internal/testlog"
	"github.com/revoltgo/eventloop/socket"
)

// tlsFiles writes a self-signed certificate for names (and 127.0.0.1)
// and its key, PEM, and returns their paths and a pool that trusts it.
func tlsFiles(t *testing.T, notAfter time.Time, names ...string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	c, err := testcert.New(notAfter, names...)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err = c.WriteFiles(tempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, c.Pool
}

// tlsCert is tlsFiles for example.test, a day long, with the certificate
// loaded, for a TLSConfig that holds it.
func tlsCert(t *testing.T) (cert tls.Certificate, certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	certFile, keyFile, pool = tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return cert, certFile, keyFile, pool
}

// serveTLS is serve with ServeTLS; the first on l runs it.
func serveTLS(t *testing.T, l *core.Loop, srv *Server, certFile, keyFile string) *testServer {
	t.Helper()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !running[l] {
		running[l] = true
		t.Cleanup(func() { delete(running, l) })
		runLoop(t, l)
	}
	ts := &testServer{srv: srv, l: l, ln: ln, addr: ln.Addr().String(), log: &testlog.Buffer{}, served: make(chan error, 1)}
	ts.url = "https://" + ts.addr
	srv.ErrorLog = log.New(ts.log, "", 0)
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			ts.open.Add(1)
		case http.StateClosed, http.StateHijacked:
			ts.open.Add(-1)
		}
	}
	go func() { ts.served <- srv.ServeTLS(l, ln, certFile, keyFile) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
		if err := <-ts.served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ServeTLS returned %v, want http.ErrServerClosed", err)
		}
	})
	return ts
}

// running are the loops serveTLS runs (the test's goroutine's alone).
var running = map[*core.Loop]bool{}

func tlsClient(t *testing.T, pool *x509.CertPool, protos ...string) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, NextProtos: protos}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// HTTPS with net/http's client: requests over one kept connection, a
// 1 MiB body echoed, Request.TLS, a file, and HTTP/1.1 for a client that
// asks for h2 first.
func TestServeTLS(t *testing.T) {
	watchdog(t, 2*time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	dir, files := staticDir(t, 300<<10)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.HandleFunc("/who", func(w http.ResponseWriter, r *http.Request) {
			if r.TLS == nil {
				http.Error(w, "no TLS state", 500)
				return
			}
			fmt.Fprintf(w, "%s %s %v", r.Proto, r.TLS.NegotiatedProtocol, r.TLS.HandshakeComplete)
		})
		mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })
		mux.Handle("/files/", http.StripPrefix("/files/", http.FileServer(http.Dir(dir))))
		ts := serveTLS(t, l, &Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, certFile, keyFile)
		cl := tlsClient(t, pool, "h2", "http/1.1")
		for range 3 {
			resp, err := cl.Get(ts.url + "/who")
			if err != nil {
				t.Fatal(err)
			}
			if got := bodyString(t, resp); got != "HTTP/1.1 http/1.1 true" || resp.Proto != "HTTP/1.1" {
				t.Errorf("/who: %q over %s", got, resp.Proto)
			}
		}
		body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
		resp, err := cl.Post(ts.url+"/echo", "application/octet-stream", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != string(body) {
			t.Errorf("/echo: %d bytes back, want %d", len(got), len(body))
		}
		for name, data := range files {
			resp, err := cl.Get(ts.url + "/files/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if got := bodyString(t, resp); got != string(data) {
				t.Errorf("file %s: %d bytes, want %d", name, len(got), len(data))
			}
		}
		if n := ts.open.Load(); n != 1 {
			t.Errorf("%d connections open, want the one kept", n)
		}
	})
}

// A TLSConfig shared with net/http (NextProtos h2 and http/1.1, as
// net/http's servers and clients hold): ServeTLS leaves h2 out for its
// own connections, so a client offering h2 gets HTTP/1.1, and leaves the
// caller's config as it was (its NextProtos, and the spare room of its
// Certificates), though two ServeTLS calls on one Server use it at once.
func TestServeTLSSharedConfig(t *testing.T) {
	watchdog(t, time.Minute)
	cert, certFile, keyFile, pool := tlsCert(t)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		certs := make([]tls.Certificate, 1, 2)
		certs[0] = cert
		config := &tls.Config{Certificates: certs, NextProtos: []string{"h2", "http/1.1"}}
		srv := &Server{TLSConfig: config, ErrorLog: discardLog, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %s", r.Proto, r.TLS.NegotiatedProtocol)
		})}
		runLoop(t, l)
		var urls []string
		served := make(chan error, 2)
		for range 2 {
			ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			urls = append(urls, "https://"+ln.Addr().String())
			// The files too: their certificate is added to the config's.
			go func() { served <- srv.ServeTLS(l, ln, certFile, keyFile) }()
		}
		t.Cleanup(func() {
			if err := srv.Close(); err != nil {
				t.Errorf("server Close: %v", err)
			}
			for range 2 {
				if err := <-served; !errors.Is(err, http.ErrServerClosed) {
					t.Errorf("ServeTLS returned %v, want http.ErrServerClosed", err)
				}
			}
		})
		cl := tlsClient(t, pool, "h2", "http/1.1")
		for _, url := range urls {
			resp, err := cl.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			if got := bodyString(t, resp); got != "HTTP/1.1 http/1.1" || resp.Proto != "HTTP/1.1" {
				t.Errorf("a client offering h2: %q over %s, want HTTP/1.1 over ALPN http/1.1", got, resp.Proto)
			}
		}
		if want := []string{"h2", "http/1.1"}; !slices.Equal(config.NextProtos, want) {
			t.Errorf("the caller's NextProtos after ServeTLS: %q, want %q", config.NextProtos, want)
		}
		if spare := certs[:2][1]; spare.Certificate != nil || spare.PrivateKey != nil {
			t.Error("ServeTLS wrote its certificate into the spare room of the caller's Certificates")
		}
	})
}

// Bad handshakes: plain HTTP to the TLS port gets net/http's 400; a
// ClientHello cut short is closed at ReadHeaderTimeout; a client that
// does not trust the certificate, or finds it expired or for another
// name, fails its handshake, and the server logs it, as net/http's.
func TestServeTLSBadHandshakes(t *testing.T) {
	watchdog(t, 2*time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	oldCert, oldKey, oldPool := tlsFiles(t, time.Now().Add(-time.Hour), "example.test")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
		ts := serveTLS(t, l, &Server{Handler: handler, ReadHeaderTimeout: 300 * time.Millisecond}, certFile, keyFile)

		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if b, _ := io.ReadAll(rc); !strings.HasPrefix(string(b), "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.") {
			t.Errorf("plain HTTP to the TLS port: %q", b)
		}

		rc = dialRaw(t, ts.addr)
		rc.send(t, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03") // a ClientHello's first bytes
		start := time.Now()
		if b, err := io.ReadAll(rc); len(b) != 0 || err != nil {
			t.Errorf("a ClientHello cut short: read %q, %v; want the end of the stream", b, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("a stalled handshake took %v to close", d)
		}

		for name, cl := range map[string]*http.Client{
			"untrusted":  tlsClient(t, nil),
			"other name": {Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "other.test"}}},
		} {
			if _, err := cl.Get(ts.url); err == nil {
				t.Errorf("%s: the request succeeded", name)
			}
		}
		ts.waitOpen(t, 0)
		if !ts.log.Contains("http: TLS handshake error from 127.0.0.1:") {
			t.Errorf("the server did not log the failed handshakes:\n%s", ts.log)
		}

		expired := serveTLS(t, l, &Server{Handler: handler}, oldCert, oldKey)
		_, err := tlsClient(t, oldPool).Get(expired.url)
		var cerr *tls.CertificateVerificationError
		if !errors.As(err, &cerr) || !strings.Contains(err.Error(), "expired") {
			t.Errorf("an expired certificate: %v", err)
		}
	})
}

// Thousands of clients that open a connection and never finish the
// handshake (half a ClientHello, or nothing) cost the loop nothing but
// their fibers: a real client is answered meanwhile, and each stalled one
// is closed at ReadHeaderTimeout, as net/http's.
func TestServeTLSStalledHandshakes(t *testing.T) {
	watchdog(t, 2*time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	n := 5000
	if runtime.GOOS == "windows" {
		n = 500 // under Wine 5000 dials alone take 9 s, past ReadHeaderTimeout
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serveTLS(t, l, &Server{Handler: hello, ReadHeaderTimeout: time.Second}, certFile, keyFile)
		stalled := make([]net.Conn, 0, n)
		defer func() {
			for _, c := range stalled {
				c.Close()
			}
		}()
		t0 := time.Now()
		for i := range n {
			c, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatalf("dial %d: %v", i, err)
			}
			stalled = append(stalled, c)
			if i%2 == 0 {
				if _, err := c.Write([]byte("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("dialed %d in %v", n, time.Since(t0))
		cl := tlsClient(t, pool)
		resp, err := cl.Get(ts.url)
		if err != nil {
			t.Fatalf("a client among %d stalled handshakes: %v", n, err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Errorf("a client among %d stalled handshakes got %q", n, got)
		}
		cl.CloseIdleConnections()
		t.Logf("answered at %v", time.Since(t0))
		for i, c := range stalled {
			c.SetReadDeadline(time.Now().Add(time.Minute)) // a hang guard only
			if b, err := io.ReadAll(c); len(b) != 0 || err != nil {
				t.Fatalf("stalled handshake %d: read %q, %v; want the end of the stream", i, b, err)
			}
		}
		t.Logf("all closed at %v", time.Since(t0))
		ts.waitOpen(t, 0)
	})
}

// ServeTLS with no files serves the certificate that its TLSConfig
// holds, as net/http's does.
func TestServeTLSCertificateOfTheConfig(t *testing.T) {
	watchdog(t, time.Minute)
	cert, _, _, pool := tlsCert(t)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serveTLS(t, l, &Server{Handler: hello, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}, "", "")
		resp, err := tlsClient(t, pool).Get(ts.url + "/")
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Errorf("got %q", got)
		}
	})
}

// ServeTLS without a certificate fails, and closes the listener.
func TestServeTLSNoCertificate(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &Server{}
		if err := srv.ServeTLS(l, ln, "", ""); err == nil {
			t.Fatal("ServeTLS without a certificate: nil error")
		}
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after: %v, want net.ErrClosed", err)
		}
	})
}

// The handshake's timeout is net/http's: the shortest of ReadHeaderTimeout,
// ReadTimeout and WriteTimeout that are set, or none.
func TestTLSHandshakeTimeout(t *testing.T) {
	for _, c := range []struct {
		srv  *Server
		want time.Duration
	}{
		{&Server{}, 0},
		{&Server{WriteTimeout: 5 * time.Second}, 5 * time.Second},
		{&Server{ReadHeaderTimeout: 3 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 5 * time.Second}, 2 * time.Second},
		{&Server{ReadHeaderTimeout: 3 * time.Second, WriteTimeout: time.Second}, time.Second},
		{&Server{ReadHeaderTimeout: 4 * time.Second, ReadTimeout: 6 * time.Second}, 4 * time.Second},
	} {
		if got := c.srv.tlsHandshakeTimeout(); got != c.want {
			t.Errorf("ReadHeaderTimeout %v, ReadTimeout %v, WriteTimeout %v: %v, want %v",
				c.srv.ReadHeaderTimeout, c.srv.ReadTimeout, c.srv.WriteTimeout, got, c.want)
		}
	}
}

// The handshake's deadline ends with it: a response written after it
// would have passed is sent (here ReadHeaderTimeout alone is set, which
// sets no write deadline of its own).
func TestTLSHandshakeDeadlineEnds(t *testing.T) {
	watchdog(t, time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const rht = 200 * time.Millisecond
		ts := serveTLS(t, l, &Server{ReadHeaderTimeout: rht, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := l.Suspension()
			l.Delay(3*rht, func(core.CallbackID) { s.Resume(nil) })
			s.Suspend()
			io.WriteString(w, "late")
		})}, certFile, keyFile)
		resp, err := tlsClient(t, pool).Get(ts.url + "/")
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != "late" {
			t.Errorf("got %q, want the late answer", got)
		}
	})
}
