//go:build unix || windows

package socket

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/net/nettest"
)

// tlsConfigs are a server's config with selfSigned's certificate and a
// client's that trusts it.
func tlsConfigs(t *testing.T) (server, client *tls.Config) {
	cert, pool := selfSigned(t)
	return &tls.Config{Certificates: []tls.Certificate{cert}}, &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// TestTLSNetConn runs nettest.TestConn on TLSConns of every driver, a
// client and a server of ours, from goroutines.
func TestTLSNetConn(t *testing.T) {
	watchdog(t, 3*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		srvConf, cliConf := tlsConfigs(t)
		nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
			a, b, _, err := makePipe(l, "tcp", "127.0.0.1:0")
			if err != nil {
				return nil, nil, nil, err
			}
			tc, ts := TLSClient(a.(*Conn), cliConf), TLSServer(b.(*Conn), srvConf)
			// The handshake first: one that a test's deadline cuts short
			// leaves a TLS connection broken for good, ours as crypto/tls's.
			hs := make(chan error, 1)
			go func() { hs <- ts.Handshake() }()
			if err := errors.Join(tc.Handshake(), <-hs); err != nil {
				tc.Close()
				ts.Close()
				return nil, nil, nil, err
			}
			return tc, ts, func() { tc.Close(); ts.Close() }, nil
		})
	})
}

// tlsAccept accepts one conn on ln in a fiber of l and serves it with
// serve, as a TLSConn; the client is crypto/tls over package net, from the
// test's goroutine.
func tlsAccept(t *testing.T, l *core.Loop, serve func(c *TLSConn)) *tls.Conn {
	t.Helper()
	srvConf, cliConf := tlsConfigs(t)
	ln, err := Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The server's conn is closed when t ends, if serve did not close it
	// (a second Close fails, harmlessly).
	var mu sync.Mutex
	var srv *TLSConn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if srv != nil {
			srv.Close()
		}
	})
	l.Post(func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			t.Error(err)
			return
		}
		s := TLSServer(c.(*Conn), srvConf)
		mu.Lock()
		srv = s
		mu.Unlock()
		serve(s)
	})
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c := tls.Client(nc, cliConf)
	t.Cleanup(func() { c.Close() })
	return c
}

// A reader fiber and a writer fiber on one TLSConn from its first byte
// (the handshake made by whichever comes first, the other waiting
// without blocking the loop), a second reader, and a Close from a third
// fiber while the writer waits for a peer that does not read: the loop
// runs throughout, and the bytes are crypto/tls's own client's.
func TestTLSFibers(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		const size = 1 << 20
		data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
		got := make(chan string, 2)
		wrote := make(chan error, 1)
		c := tlsAccept(t, l, func(c *TLSConn) {
			for range 2 { // two readers at once
				l.Defer(func(core.CallbackID) {
					buf := make([]byte, 5)
					n, err := io.ReadFull(c, buf)
					if err != nil {
						got <- err.Error()
						return
					}
					got <- string(buf[:n])
				})
			}
			l.Defer(func(core.CallbackID) { // the writer
				_, err := c.Write(data)
				wrote <- err
			})
		})
		buf := make([]byte, size)
		if _, err := io.ReadFull(c, buf); err != nil || !bytes.Equal(buf, data) {
			t.Fatalf("the client read %v, equal %v", err, bytes.Equal(buf, data))
		}
		if err := <-wrote; err != nil {
			t.Errorf("the server's Write: %v", err)
		}
		io.WriteString(c, "helloworld")
		a, b := <-got, <-got
		if a+b != "helloworld" && b+a != "helloworld" {
			t.Errorf("the two readers got %q and %q", a, b)
		}
	})
}

// Close from another fiber while a Write waits for a peer that does not
// read: Close returns, the Write fails with net.ErrClosed, and the loop
// was never blocked.
func TestTLSCloseWhileWriteWaits(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		wrote := make(chan error, 1)
		closed := make(chan error, 1)
		c := tlsAccept(t, l, func(c *TLSConn) {
			if err := c.Handshake(); err != nil {
				t.Error(err)
			}
			l.Defer(func(core.CallbackID) {
				_, err := c.Write(make([]byte, 32<<20))
				wrote <- err
			})
			l.Delay(100*time.Millisecond, func(core.CallbackID) { closed <- c.Close() })
		})
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-wrote; !errors.Is(err, net.ErrClosed) {
			t.Errorf("the Write across Close: %v, want net.ErrClosed", err)
		}
	})
}

// Our client against crypto/tls's server (httptest's TLS server, a
// request by hand), and a handshake that fails: a server whose
// certificate the client does not trust.
func TestTLSClient(t *testing.T) {
	watchdog(t, time.Minute)
	srvConf, cliConf := tlsConfigs(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over TLS")
	}))
	srv.TLS = srvConf
	srv.StartTLS()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		raw, err := Dial(l, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := TLSClient(raw, cliConf)
		defer c.Close()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := io.ReadAll(c)
		if err != nil || !strings.HasSuffix(string(resp), "hello over TLS") {
			t.Fatalf("read %q, %v", resp, err)
		}
		if st := c.ConnectionState(); !st.HandshakeComplete || st.Version != tls.VersionTLS13 {
			t.Errorf("ConnectionState: complete %v, version %x", st.HandshakeComplete, st.Version)
		}

		raw, err = Dial(l, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		bad := TLSClient(raw, &tls.Config{ServerName: "localhost"}) // the system's roots
		defer bad.Close()
		var uerr *tls.CertificateVerificationError
		if err := bad.Handshake(); !errors.As(err, &uerr) {
			t.Errorf("handshake with an untrusted certificate: %v, want a *tls.CertificateVerificationError", err)
		}
		if _, err := bad.Write([]byte("x")); !errors.As(err, &uerr) {
			t.Errorf("Write after the failed handshake: %v, want its error", err)
		}
	})
}
