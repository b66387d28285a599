package httpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The client-gone watch (socket.PeerWatch): a handler waiting on its
// request's context in a goroutine (core.Await) sees it cancelled when the client closes its
// connection, and nothing else cancels it meanwhile (the handler has not
// returned, and nothing was written that could fail).
func TestWatchSeesClientGo(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{})
		ended := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			_, err := core.Await(LoopFromContext(ctx), func(awaitCtx context.Context) (struct{}, error) {
				close(waiting)
				select {
				case <-ctx.Done():
					return struct{}{}, ctx.Err()
				case <-time.After(20 * time.Second):
					return struct{}{}, errors.New("the context was not cancelled in 20 s")
				}
			})
			ended <- err
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		<-waiting
		rc.Close()
		if err := <-ended; !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context after its client closed: %v, want context.Canceled", err)
		}
	})
}

// withBody are requests whose body's bytes are the client's last: the
// watch cannot begin until the body's end (before, the client's bytes
// are the body's), so a watch asked for earlier waits for that end.
var withBody = []struct{ name, req string }{
	{"Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"},
	{"chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
}

// derivesBeforeBody is a handler that derives a context from its
// request's before it reads the body (context.WithTimeout asks for Done
// at once, as a middleware's timeout does), reads the body, and waits in
// a goroutine (core.Await) for that context's end, which it reports on
// ended. Its timeout is a hang guard: DeadlineExceeded is the failure.
func derivesBeforeBody(waiting chan<- struct{}, ended chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if _, err := io.ReadAll(r.Body); err != nil {
			ended <- err
			return
		}
		_, err := core.Await(LoopFromContext(ctx), func(context.Context) (struct{}, error) {
			waiting <- struct{}{}
			<-ctx.Done()
			return struct{}{}, ctx.Err()
		})
		ended <- err
	})
}

// leaveAfterBody sends req on c, a fresh connection to a server of
// derivesBeforeBody, closes c once the handler waits, and wants the
// handler's context cancelled.
func leaveAfterBody(t *testing.T, c net.Conn, req string, waiting <-chan struct{}, ended <-chan error) {
	t.Helper()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waiting:
	case err := <-ended:
		t.Fatalf("the handler ended before it waited: %v", err)
	}
	c.Close()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the context the handler derived before its body, after its client closed: %v, want context.Canceled", err)
	}
}

// The client-gone watch asked for before the body was read begins at the
// body's end: the context is cancelled when the client closes.
func TestWatchSeesClientGoAfterBody(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{}, 1)
		ended := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: derivesBeforeBody(waiting, ended)})
		for _, tc := range withBody {
			// A failed case leaves its handler waiting for its timeout.
			ok := t.Run(tc.name, func(t *testing.T) {
				leaveAfterBody(t, dialRaw(t, ts.addr), tc.req, waiting, ended)
			})
			if !ok {
				break
			}
		}
	})
}

// A client whose next request is already here has not gone, even if it
// has closed its side since: no watch begins while a pipelined request
// waits, also one that begins where the read buffer ended (the request
// before it filled that buffer exactly). The handler waits a while on its
// context, which must stay alive.
func TestWatchWaitsForPipelinedRequest(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/wait" {
				hello(w, r)
				return
			}
			ctx := r.Context()
			got, _ := core.Await(LoopFromContext(ctx), func(context.Context) (string, error) {
				select {
				case <-ctx.Done():
					return "cancelled", nil
				case <-time.After(300 * time.Millisecond):
					return "alive", nil
				}
			})
			io.WriteString(w, got)
		})})
		for _, n := range []int{bufSize - 1, bufSize, 2 * bufSize} {
			head := "GET /wait HTTP/1.1\r\nHost: x\r\nX-Pad: "
			first := head + strings.Repeat("p", n-len(head)-4) + "\r\n\r\n"
			rc := dialRaw(t, ts.addr)
			rc.send(t, first+"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if err := rc.Conn.(*net.TCPConn).CloseWrite(); err != nil {
				t.Fatal(err)
			}
			if got := bodyString(t, rc.response(t, "GET")); got != "alive" {
				t.Errorf("first request of %d bytes: the handler's context was %s while the next request waited", n, got)
			}
			if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
				t.Errorf("first request of %d bytes: the next response: %q", n, got)
			}
		}
	})
}
