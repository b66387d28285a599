//go:build unix

package socket

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Our client, in a fiber, against a server of package net.
func TestOurClientNetServer(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			io.Copy(c, c)
		}()
		payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
		fiber(l, func() {
			c, err := Dial(l, "tcp", ln.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			fiber(l, func() {
				c.Write(payload)
				c.CloseWrite()
			})
			got, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(got, payload) {
				t.Errorf("echo: %d bytes, %v", len(got), err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// A client of package net against our server, a fiber per connection.
func TestNetClientOurServer(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		fiber(l, func() {
			for {
				c, err := ln.AcceptConn()
				if err != nil {
					return
				}
				fiber(l, func() {
					defer c.Close()
					io.Copy(c, c)
				})
			}
		})
		runLoop(t, l)
		const clients = 4
		errs := make(chan error, clients)
		for i := range clients {
			go func() {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				msg := bytes.Repeat([]byte{byte('a' + i)}, 300<<10)
				go func() {
					c.Write(msg)
					c.(*net.TCPConn).CloseWrite()
				}()
				got, err := io.ReadAll(c)
				if err == nil && !bytes.Equal(got, msg) {
					err = errors.New("echo differs")
				}
				errs <- err
			}()
		}
		for range clients {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		ln.Close()
	})
}

// net/http's Server over our listener (http.Serve on a goroutine, the loop
// on another), hit by net/http's client.
func TestHTTPServe(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		runLoop(t, l)
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.Header().Set("X-Path", r.URL.Path)
				w.Write(bytes.ToUpper(body))
			}),
			ReadTimeout: 10 * time.Second,
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		for i := range 20 {
			body := strings.Repeat("hello ", 1+i*1000)
			resp, err := client.Post("http://"+ln.Addr().String()+"/x", "text/plain", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(got) != strings.ToUpper(body) || resp.Header.Get("X-Path") != "/x" {
				t.Fatalf("request %d: %d bytes, %v, path %q", i, len(got), err, resp.Header.Get("X-Path"))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Fatal(err)
		}
	})
}

// crypto/tls over our conns: tls.Server and tls.Client, each in a fiber,
// with a self-signed certificate made here.
func TestTLS(t *testing.T) {
	watchdog(t, time.Minute)
	cert, pool := selfSigned(t)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		fiber(l, func() {
			c, err := ln.AcceptConn()
			if err != nil {
				t.Error(err)
				return
			}
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
			defer tc.Close()
			io.Copy(tc, tc)
		})
		var got []byte
		fiber(l, func() {
			c, err := Dial(l, "tcp", ln.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			tc := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "localhost"})
			defer tc.Close()
			msg := bytes.Repeat([]byte("secret "), 50_000)
			if _, err := tc.Write(msg); err != nil {
				t.Error(err)
				return
			}
			got = make([]byte, len(msg))
			if _, err := io.ReadFull(tc, got); err != nil || !bytes.Equal(got, msg) {
				t.Errorf("TLS echo: %v", err)
			}
			if st := tc.ConnectionState(); !st.HandshakeComplete {
				t.Error("no handshake")
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatal("nothing came back")
		}
	})
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true,

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// A dial that its context ends: canceled, or a deadline (a timeout). The
// connect cannot finish: the listener's queue is full and never accepted.
func TestDialContext(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		lc := ListenConfig{Backlog: 1}
		ln, err := lc.Listen(t.Context(), l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addr := ln.Addr().String()
		// Fill the accept queue (and the SYN queue behind it).
		var fill []net.Conn
		defer func() {
			for _, c := range fill {
				c.Close()
			}
		}()
		for range 8 {
			c, err := net.DialTimeout("tcp4", addr, 100*time.Millisecond)
			if err != nil {
				break
			}
			fill = append(fill, c)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = DialContext(ctx, l, "tcp4", addr)
		if err == nil {
			t.Skip("the kernel accepted a connection beyond the backlog: no connect to time out")
		}
		var oe *net.OpError
		if !isTimeout(err) || !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "dial" {
			t.Fatalf("DialContext past its deadline: %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("the deadline took %v", d)
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(30*time.Millisecond, cancel)
		res := make(chan error, 1)
		fiber(l, func() {
			_, err := DialContext(ctx, l, "tcp4", addr)
			res <- err
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatalf("DialContext canceled, from a fiber: %v", err)
		}
	})
}

// FileConn and FileListener adopt a duplicate; File duplicates ours;
// SyscallConn reaches the descriptor; the options reach the socket.
func TestFilesAndOptions(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		nl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := nl.(*net.TCPListener).File()
		nl.Close()
		if err != nil {
			t.Fatal(err)
		}
		ln, err := FileListener(l, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		c, err := ln.AcceptConn()
		if err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{
			"SetNoDelay":         c.SetNoDelay(false),
			"SetKeepAlive":       c.SetKeepAlive(true),
			"SetKeepAlivePeriod": c.SetKeepAlivePeriod(30 * time.Second),
			"SetReadBuffer":      c.SetReadBuffer(64 << 10),
			"SetWriteBuffer":     c.SetWriteBuffer(64 << 10),
		} {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		rc, err := c.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var nodelay int
		rc.Control(func(fd uintptr) {
			nodelay, _ = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
		})
		if nodelay != 0 {
			t.Error("SetNoDelay(false) left TCP_NODELAY on")
		}
		// A File of ours, adopted by FileConn: three handles on one socket.
		cf, err := c.File()
		if err != nil {
			t.Fatal(err)
		}
		c2, err := FileConn(l, cf)
		cf.Close()
		if err != nil {
			t.Fatal(err)
		}
		c.Close() // c2 still holds the socket
		if _, err := nc.Write([]byte("via dup")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, err := c2.Read(buf)
		if string(buf[:n]) != "via dup" || err != nil {
			t.Fatalf("Read on FileConn's dup: %q, %v", buf[:n], err)
		}
		if c2.LocalAddr().String() != nc.RemoteAddr().String() || c2.RemoteAddr().String() != nc.LocalAddr().String() {
			t.Errorf("FileConn addresses %v -> %v, peer's %v -> %v", c2.LocalAddr(), c2.RemoteAddr(), nc.LocalAddr(), nc.RemoteAddr())
		}
		// RawConn.Read waits on the loop as Read does.
		rc2, _ := c2.SyscallConn()
		go func() {
			time.Sleep(20 * time.Millisecond)
			nc.Write([]byte("raw"))
		}()
		var raw []byte
		err = rc2.Read(func(fd uintptr) bool {
			n, err := syscall.Read(int(fd), buf)
			if err == syscall.EAGAIN {
				return false
			}
			raw = buf[:max(n, 0)]
			return true
		})
		if err != nil || string(raw) != "raw" {
			t.Fatalf("RawConn.Read: %q, %v", raw, err)
		}
		c2.Close()
		// A descriptor that is not a stream socket.
		df, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer df.Close()
		if _, err := FileConn(l, df); err == nil {
			t.Error("FileConn of /dev/null: no error")
		}
	})
}
