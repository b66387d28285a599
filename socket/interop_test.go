//go:build unix || windows

package socket

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testcert"
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
	c, err := testcert.New(time.Now().Add(time.Hour), "localhost")
	if err != nil {
		t.Fatal(err)
	}
	return c.TLS, c.Pool
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

// The options reach the socket, with net's defaults for a TCP conn
// (TCP_NODELAY and keep-alives on); SyscallConn reaches the descriptor,
// and its Read waits on the loop as Read does.
func TestOptions(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
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
		defer c.Close()
		d, err := Dial(l, "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		for what, c := range map[string]*Conn{"accepted": c, "dialed": d} {
			if option(t, c, ipprotoTCP, tcpNoDelay) == 0 {
				t.Errorf("%s conn: TCP_NODELAY off, want on by default", what)
			}
			if option(t, c, solSocket, soKeepAlive) == 0 {
				t.Errorf("%s conn: keep-alives off, want on by default", what)
			}
		}
		d.Close()
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
		if option(t, c, ipprotoTCP, tcpNoDelay) != 0 {
			t.Error("SetNoDelay(false) left TCP_NODELAY on")
		}
		if err := c.SetKeepAlive(false); err != nil || option(t, c, solSocket, soKeepAlive) != 0 {
			t.Errorf("SetKeepAlive(false): %v, or left keep-alives on", err)
		}
		if n := option(t, c, solSocket, soRcvbuf); n < 64<<10 {
			t.Errorf("SO_RCVBUF %d after SetReadBuffer(64 KiB)", n)
		}
		// RawConn.Read waits on the loop as Read does.
		rc, _ := c.SyscallConn()
		wrote := make(chan error, 1)
		go func() {
			// Once rc.Read waits (this goroutine runs the loop for it, in
			// RunUntil): the data must come while it waits.
			err := goroutineWaits(l)
			if err == nil {
				_, err = nc.Write([]byte("raw"))
			}
			wrote <- err
		}()
		defer func() {
			if err := <-wrote; err != nil {
				t.Error(err)
			}
		}()
		buf := make([]byte, 16)
		var raw []byte
		err = rc.Read(func(fd uintptr) bool {
			n, again, err := rawRecv(fd, buf)
			if again {
				return false
			}
			if err != nil {
				t.Error(err)
			}
			raw = buf[:n]
			return true
		})
		if err != nil || string(raw) != "raw" {
			t.Fatalf("RawConn.Read: %q, %v", raw, err)
		}
	})
}
