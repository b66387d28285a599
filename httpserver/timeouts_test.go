//go:build unix || windows

package httpserver

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The Server's timeouts, each against net/http's server with the same
// setting: what the client sees must be the same.

// IdleTimeout closes a keep-alive connection that sends nothing more.
func TestIdleTimeout(t *testing.T) {
	watchdog(t, time.Minute)
	const idle = 200 * time.Millisecond
	std := stdServe(t, hello, func(s *http.Server) { s.IdleTimeout = idle })
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello, IdleTimeout: idle})
		for _, addr := range []string{std, ts.addr} {
			rc := dialRaw(t, addr)
			// The idle time starts when the server has written the
			// response, which the client may read later: timed from
			// before the request, it is a lower bound.
			start := time.Now()
			rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			rc.response(t, "GET")
			if ok, why := rc.closed(5 * time.Second); !ok {
				t.Errorf("%s: %s", addr, why)
			}
			if d := time.Since(start); d < idle {
				t.Errorf("%s: closed after %v, before IdleTimeout", addr, d)
			}
		}
		ts.waitOpen(t, 0)
	})
}

// ReadTimeout bounds the whole request: a body that stops coming fails
// the handler's read, and the connection closes.
func TestReadTimeout(t *testing.T) {
	watchdog(t, time.Minute)
	const rt = 300 * time.Millisecond
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "read: timeout", http.StatusRequestTimeout)
			return
		}
		io.WriteString(w, "whole")
	})
	std := stdServe(t, h, func(s *http.Server) { s.ReadTimeout = rt })
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: h, ReadTimeout: rt})
		var outcomes []string
		for _, addr := range []string{std, ts.addr} {
			rc := dialRaw(t, addr)
			rc.send(t, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
			resp := rc.response(t, "POST")
			closed, _ := rc.closed(5 * time.Second)
			outcomes = append(outcomes, resp.Status+" "+strings.TrimSpace(bodyString(t, resp))+" "+map[bool]string{true: "closed", false: "open"}[closed])
		}
		if outcomes[0] != outcomes[1] || !strings.HasPrefix(outcomes[0], "408") {
			t.Errorf("net/http: %q, ours: %q", outcomes[0], outcomes[1])
		}
		ts.waitOpen(t, 0)
	})
}

// A body that comes after the header, in time, is read: the handler
// reads it from the socket under the deadline ReadTimeout set from the
// request's start (a deadline counted from no start at all has passed),
// or under none when only WriteTimeout is set.
func TestReadTimeoutLeavesTimeForTheBody(t *testing.T) {
	watchdog(t, time.Minute)
	for _, c := range []struct {
		name string
		srv  func() *Server
	}{
		{"ReadTimeout", func() *Server { return &Server{ReadTimeout: time.Minute} }},
		{"WriteTimeout", func() *Server { return &Server{WriteTimeout: time.Minute} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				srv := c.srv()
				srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, err := io.ReadAll(r.Body)
					fmt.Fprintf(w, "%q %v", b, err)
				})
				ts := serve(t, l, srv)
				rc := dialRaw(t, ts.addr)
				rc.send(t, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
				time.Sleep(20 * time.Millisecond)
				rc.send(t, "abcdefghij")
				if got := bodyString(t, rc.response(t, "POST")); got != `"abcdefghij" <nil>` {
					t.Errorf("the handler read %s, want the body", got)
				}
			})
		})
	}
}

// WriteTimeout bounds writing the response: a client that does not read
// a large response makes the handler's writes fail.
func TestWriteTimeout(t *testing.T) {
	watchdog(t, time.Minute)
	const wt = 300 * time.Millisecond
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		failed := make(chan error, 1)
		ts := serve(t, l, &Server{WriteTimeout: wt, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			chunk := make([]byte, 64<<10)
			for range 2048 {
				if _, err := w.Write(chunk); err != nil {
					failed <- err
					return
				}
			}
			failed <- nil
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		select {
		case err := <-failed:
			if err == nil {
				t.Error("128 MiB written to a client that reads nothing")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the write did not time out")
		}
		rc.Close()
		ts.waitOpen(t, 0)
	})
}

// ReadTimeout alone bounds the header's wait and the idle wait too, as
// net/http's does when ReadHeaderTimeout and IdleTimeout are not set: a
// header that stops coming, and a connection idle after its response,
// are closed.
func TestReadTimeoutAloneBoundsHeaderAndIdle(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello, ReadTimeout: 300 * time.Millisecond})
		stalled := dialRaw(t, ts.addr)
		stalled.send(t, "GET / HTTP/1.1\r\nHost: x\r\n")
		idle := dialRaw(t, ts.addr)
		idle.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		idle.response(t, "GET")
		for _, c := range []struct {
			name string
			rc   *rawConn
		}{{"a stalled header", stalled}, {"an idle connection", idle}} {
			// 5 s: many times the timeout, and short of the one that the
			// mutation script gives the test.
			c.rc.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadAll(c.rc.r); err != nil {
				t.Fatalf("%s: %v, want the connection closed", c.name, err)
			}
		}
	})
}
