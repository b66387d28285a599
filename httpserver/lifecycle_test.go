//go:build unix || windows

package httpserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/revoltgo/eventloop/socket"
)

// Handler panics, clients that vanish, Shutdown and Close.

// A handler that panics before its response gets a 500 and a closed
// connection; after its header went, only the closed connection. Either
// way the panic is logged with its stack, the server serves on, and
// http.ErrAbortHandler aborts without a log.
func TestHandlerPanic(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/early":
				w.Header().Set("X-Lost", "1")
				io.WriteString(w, "lost")
				panicDeep("early")
			case "/late":
				w.Write([]byte(strings.Repeat("x", 10000)))
				w.(http.Flusher).Flush()
				panic("late")
			case "/abort":
				panic(http.ErrAbortHandler)
			}
			hello(w, r)
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /early HTTP/1.1\r\nHost: x\r\n\r\n")
		resp := rc.response(t, "GET")
		if resp.StatusCode != 500 || resp.Header.Get("X-Lost") != "" || !resp.Close {
			t.Errorf("/early: %d, X-Lost %q, close %v", resp.StatusCode, resp.Header.Get("X-Lost"), resp.Close)
		}
		if ok, why := rc.closed(5 * time.Second); !ok {
			t.Errorf("/early: %s", why)
		}
		if log := ts.log.String(); !strings.Contains(log, "http: panic serving") || !strings.Contains(log, "early") ||
			!strings.Contains(log, "httpserver.panicDeep") {
			t.Errorf("log without the panic and its stack: %q", log)
		}

		rc = dialRaw(t, ts.addr)
		rc.send(t, "GET /late HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(rc.r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("/late: %v %v", resp, err)
		}
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Error("/late: the body ended cleanly; want the connection cut")
		}
		if !strings.Contains(ts.log.String(), "late") {
			t.Error("/late not logged")
		}

		before := ts.log.String()
		rc = dialRaw(t, ts.addr)
		rc.send(t, "GET /abort HTTP/1.1\r\nHost: x\r\n\r\n")
		if ok, why := rc.closed(5 * time.Second); !ok {
			t.Errorf("/abort: %s", why)
		}
		if after := ts.log.String(); after != before {
			t.Errorf("ErrAbortHandler logged: %q", after[len(before):])
		}

		resp, err = client(t).Get(ts.url + "/")
		if err != nil || bodyString(t, resp) != "Hello, World!" {
			t.Errorf("after the panics: %v", err)
		}
		ts.waitOpen(t, 1)
	})
}

//go:noinline
func panicDeep(v string) { panic(v) }

// A client that vanishes in the middle of a long response: the handler's
// next Write fails, its context is cancelled, its fiber ends and the
// connection is let go.
func TestClientVanishesMidResponse(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ended := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "HEAD" {
				return
			}
			chunk := []byte(strings.Repeat("y", 32<<10))
			for range 4096 { // 128 MiB: far more than the socket buffers hold
				if _, err := w.Write(chunk); err != nil {
					if r.Context().Err() == nil {
						err = errors.New("context not cancelled after a failed write")
					}
					ended <- err
					return
				}
			}
			ended <- errors.New("wrote everything")
		})})
		// The fibers live once the server has served (its accept loop
		// runs) and nothing is open.
		if o := exchange(t, ts.addr, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0); o.status != 200 {
			t.Fatalf("%+v", o)
		}
		ts.waitOpen(t, 0)
		live := make(chan int, 1)
		l.Post(func() { live <- l.Stats().FibersLive })
		fibers := <-live
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := io.ReadFull(rc.r, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		select {
		case err := <-ended:
			if err == nil || err.Error() == "wrote everything" || strings.Contains(err.Error(), "context") {
				t.Errorf("handler: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the handler is still writing")
		}
		ts.waitOpen(t, 0)
		deadline := time.Now().Add(5 * time.Second)
		for {
			l.Post(func() { live <- l.Stats().FibersLive })
			n := <-live
			if n <= fibers {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d fibers live, %d before", n, fibers)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// Shutdown closes the listener and the idle connections at once, lets
// the request in progress finish (its response closes its connection),
// and returns when it is done; Serve returns http.ErrServerClosed.
func TestShutdown(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var s *core.Suspension
		inHandler := make(chan struct{})
		hooked := make(chan struct{})
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				s = l.Suspension()
				close(inHandler)
				s.Suspend()
				if r.Context().Err() != nil {
					t.Error("Shutdown cancelled the request's context")
				}
			}
			hello(w, r)
		})})
		ts.srv.RegisterOnShutdown(func() { close(hooked) })
		idle := dialRaw(t, ts.addr)
		idle.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		idle.response(t, "GET")
		busy := dialRaw(t, ts.addr)
		busy.send(t, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
		<-inHandler

		shut := make(chan error, 1)
		go func() { shut <- ts.srv.Shutdown(context.Background()) }()
		if ok, why := idle.closed(5 * time.Second); !ok {
			t.Errorf("idle connection: %s", why)
		}
		// Serve returns while the request is still in progress (it is
		// suspended until the Resume below), and Shutdown does not: the
		// order is the claim, the 10 s only a hang guard.
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned %v with a request in progress", err)
		case err := <-ts.served:
			ts.served <- err
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return while the request was in progress")
		}
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned %v with a request in progress", err)
		default:
		}
		if _, err := dialTCP(ts.addr); err == nil {
			t.Error("the listener still accepts")
		}
		l.Post(func() { s.Resume(nil) })
		resp := busy.response(t, "GET")
		if bodyString(t, resp) != "Hello, World!" || !resp.Close {
			t.Errorf("in-flight response: close %v", resp.Close)
		}
		select {
		case err := <-shut:
			if err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Shutdown has not returned 10 s after the last request ended")
		}
		if ok, why := busy.closed(5 * time.Second); !ok {
			t.Errorf("busy connection after its response: %s", why)
		}
		// The hook runs on a goroutine of its own, which Shutdown does not
		// wait for (as net/http's).
		select {
		case <-hooked:
		case <-time.After(5 * time.Second):
			t.Error("the RegisterOnShutdown hook did not run")
		}
		ts.waitOpen(t, 0)
	})
}

// Shutdown gives up when its context ends first; Close then ends the
// request, cancelling its context.
func TestShutdownContextThenClose(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		inHandler := make(chan struct{})
		handlerErr := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(inHandler)
			_, err := l.Suspension().SuspendContext(r.Context())
			handlerErr <- err
		})})
		busy := dialRaw(t, ts.addr)
		busy.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		<-inHandler
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != context.DeadlineExceeded {
			t.Errorf("Shutdown: %v, want context.DeadlineExceeded", err)
		}
		if err := ts.srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-handlerErr; err != context.Canceled {
			t.Errorf("the handler's wait ended with %v", err)
		}
		if ok, why := busy.closed(5 * time.Second); !ok {
			t.Error(why)
		}
		ts.waitOpen(t, 0)
	})
}

// Shutdown called from a handler, a fiber of the server's loop: the
// handler's fiber waits (suspended, the loop serves on: another
// connection is answered while Shutdown has not returned) for the server
// to drain, which its own request keeps from happening, so its context
// ends the wait.
func TestShutdownFromHandler(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		got := make(chan error, 1)
		shutting := make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// The handler names the Server, not the testServer, which is
		// assigned on the test's goroutine after serving began.
		srv := &Server{}
		srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/shutdown" {
				hello(w, r)
				return
			}
			got <- srv.Shutdown(ctx)
		})
		ts := serve(t, l, srv)
		ts.srv.RegisterOnShutdown(func() { close(shutting) })
		other := dialRaw(t, ts.addr)
		c := dialRaw(t, ts.addr)
		// Both accepted: a connection new when Shutdown begins has 5 s to
		// send its request.
		ts.waitOpen(t, 2)
		c.send(t, "GET /shutdown HTTP/1.1\r\nHost: x\r\n\r\n")
		<-shutting
		// While the handler waits in Shutdown, the loop answers others.
		other.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp := other.response(t, "GET"); !resp.Close {
			t.Error("a response during Shutdown keeps its connection")
		}
		select {
		case err := <-got:
			t.Fatalf("Shutdown returned (%v) before its context ended: the other connection was answered only then", err)
		default:
		}
		cancel()
		if err := <-got; err != context.Canceled {
			t.Errorf("Shutdown from a handler: %v", err)
		}
		c.response(t, "GET")
		ts.waitOpen(t, 0)
	})
}

// One Server serves on two loops at once, each connection on the loop of
// its listener, and Close ends both Serves.
func TestServeOnTwoLoops(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		l2 := testloop.New(t, path.Base(t.Name()))
		loops := map[*core.Loop]string{l: "first", l2: "second"}
		srv := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, loops[LoopFromContext(r.Context())])
		})}
		ts := serve(t, l, srv)
		ln2, err := socket.Listen(l2, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		runLoop(t, l2)
		served2 := make(chan error, 1)
		go func() { served2 <- srv.Serve(l2, ln2) }()
		t.Cleanup(func() {
			srv.Close() // before serve's cleanup, which closes it again
			if err := <-served2; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("the second Serve returned %v, want http.ErrServerClosed", err)
			}
		})
		for _, c := range []struct{ url, want string }{{ts.url, "first"}, {"http://" + ln2.Addr().String(), "second"}} {
			resp, err := client(t).Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := bodyString(t, resp); got != c.want {
				t.Errorf("%s answered from the %s loop, want the %s", c.url, got, c.want)
			}
		}
	})
}

// Serve called off the loop runs the loop while it waits: a panic of
// another callback ends that run, and Serve returns it, as Run would; the
// accept loop goes on when the loop runs again.
func TestServeReturnsAnUncaughtPanic(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &Server{Handler: hello}
		l.Delay(10*time.Millisecond, func(core.CallbackID) { panic("another callback's") })
		err = srv.Serve(l, ln)
		var ue *core.UncaughtError
		if !errors.As(err, &ue) || ue.Value != "another callback's" {
			t.Fatalf("Serve returned %v, want the other callback's panic", err)
		}
		served := make(chan error, 1)
		go func() { served <- l.Run() }()
		resp, err := client(t).Get("http://" + ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Errorf("after the run that the panic ended: %q", got)
		}
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
		if err := <-served; err != nil {
			t.Errorf("the next Run: %v", err)
		}
	})
}

// Shutdown called off the loop runs the loop while it waits, as Serve
// does: a panic of another callback that ends that run is returned, and
// Shutdown returns then, its connection still open.
func TestShutdownReturnsAnUncaughtPanic(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		inHandler := make(chan struct{})
		var held *core.Suspension
		srv := &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			held = l.Suspension()
			close(inHandler)
			held.Suspend()
			io.WriteString(w, "after")
		})}
		served := make(chan error, 1)
		l.Defer(func(core.CallbackID) { served <- srv.Serve(l, ln) })
		answered := make(chan string, 1)
		go func() {
			resp, err := client(t).Get("http://" + ln.Addr().String())
			if err != nil {
				answered <- err.Error()
				return
			}
			answered <- bodyString(t, resp)
		}()
		if err := l.RunUntil(inHandler); err != nil {
			t.Fatal(err)
		}
		l.Delay(50*time.Millisecond, func(core.CallbackID) { panic("another callback's") })
		err = srv.Shutdown(context.Background())
		var ue *core.UncaughtError
		if !errors.As(err, &ue) || ue.Value != "another callback's" {
			t.Errorf("Shutdown returned %v, want the other callback's panic", err)
		}
		// The request still in flight ends as Shutdown would have let it.
		l.Defer(func(core.CallbackID) { held.Resume(nil) })
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("the second Shutdown: %v", err)
		}
		if got := <-answered; got != "after" {
			t.Errorf("the request in flight got %q", got)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
}
