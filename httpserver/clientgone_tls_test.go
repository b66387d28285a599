package httpserver

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The client-gone watch over TLS, where a peek cannot tell a close_notify
// from a request: a handler waiting on its context sees it cancelled when
// the client closes.
func TestWatchSeesClientGoTLS(t *testing.T) {
	watchdog(t, time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{})
		ended := make(chan error, 1)
		ts := serveTLS(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			_, err := core.Await(LoopFromContext(ctx), func(context.Context) (struct{}, error) {
				close(waiting)
				select {
				case <-ctx.Done():
					return struct{}{}, ctx.Err()
				case <-time.After(20 * time.Second):
					return struct{}{}, errors.New("the context was not cancelled in 20 s")
				}
			})
			ended <- err
		})}, certFile, keyFile)
		c, err := tls.Dial("tcp", ts.addr, &tls.Config{RootCAs: pool, ServerName: "example.test"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		<-waiting
		c.Close()
		if err := <-ended; !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context after its client closed: %v, want context.Canceled", err)
		}
	})
}

// A request that comes while the one before is served over TLS is read
// by the watch one byte ahead, which the next request's read gets first:
// the first request is not cancelled and the second is answered whole.
func TestWatchTLSKeepsPipelinedByte(t *testing.T) {
	watchdog(t, time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		read := make(chan int, 4)
		testHookTLSWatch = func(n int, err error) { read <- n }
		t.Cleanup(func() { testHookTLSWatch = nil })
		started := make(chan struct{})
		ts := serveTLS(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/first" {
				fmt.Fprintf(w, "second: %s %s", r.Method, r.URL.Path)
				return
			}
			ctx := r.Context()
			ctx.Done() // starts the watch
			n, _ := core.Await(LoopFromContext(ctx), func(context.Context) (int, error) {
				close(started)
				return <-read, nil // the watch read, from the second request
			})
			fmt.Fprintf(w, "first: watch read %d, context %v", n, ctx.Err())
		})}, certFile, keyFile)
		c, err := tls.Dial("tcp", ts.addr, &tls.Config{RootCAs: pool, ServerName: "example.test"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
		<-started
		io.WriteString(c, "GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		for _, want := range []string{"first: watch read 1, context <nil>", "second: GET /second"} {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if string(b) != want {
				t.Errorf("got %q, want %q", b, want)
			}
		}
	})
}

// Over TLS too, the watch asked for before the body was read begins at
// the body's end.
func TestWatchSeesClientGoAfterBodyTLS(t *testing.T) {
	watchdog(t, 2*time.Minute)
	certFile, keyFile, pool := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{}, 1)
		ended := make(chan error, 1)
		ts := serveTLS(t, l, &Server{Handler: derivesBeforeBody(waiting, ended)}, certFile, keyFile)
		for _, tc := range withBody {
			// A failed case leaves its handler waiting for its timeout.
			ok := t.Run(tc.name, func(t *testing.T) {
				c, err := tls.Dial("tcp", ts.addr, &tls.Config{RootCAs: pool, ServerName: "example.test"})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				leaveAfterBody(t, c, tc.req, waiting, ended)
			})
			if !ok {
				break
			}
		}
	})
}
