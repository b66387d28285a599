//go:build unix || windows

package httpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
)

// Handlers wrapped in Blocking block their goroutine (a channel receive,
// time.Sleep, http.TimeoutHandler, pprof's profile) while the loop serves
// the other connections; their ResponseWriter and body work from their
// goroutine. Each test has the blocked handler wait for the others to be
// served: with the loop blocked, the others would time out.

func TestBlockingHandler(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		release := make(chan struct{})
		blocked := make(chan struct{})
		mux := http.NewServeMux()
		mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })
		mux.Handle("/block", Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if l.InFiber() {
				t.Error("a Blocking handler runs in a fiber of the loop")
			}
			w.Header().Set("X-Blocked", "yes")
			close(blocked)
			<-release // blocks its goroutine
			io.WriteString(w, "released")
		})))
		ts := serve(t, l, &Server{Handler: mux})
		got := make(chan string, 1)
		go func() {
			resp, err := client(t).Get(ts.url + "/block")
			if err != nil {
				got <- err.Error()
				return
			}
			got <- resp.Header.Get("X-Blocked") + " " + bodyString(t, resp)
		}()
		<-blocked
		fastRequests(t, ts.url, 8)
		close(release)
		if s := <-got; s != "yes released" {
			t.Errorf("the blocked request got %q", s)
		}
	})
}

// The body and the ResponseWriter from the handler's goroutine: a body
// that arrives in two halves is echoed, with a Flush between, under
// http.TimeoutHandler (which waits on a channel for its handler); net/http
// answers it 200, and so must this.
func TestBlockingTimeoutHandlerEcho(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			w.Write(b[:len(b)/2])
			http.NewResponseController(w).Flush() // not under TimeoutHandler
			w.Write(b[len(b)/2:])
		})
		mux := http.NewServeMux()
		mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })
		mux.Handle("/echo", Blocking(http.TimeoutHandler(echo, 10*time.Second, "too slow")))
		mux.Handle("/direct", Blocking(echo))
		ts := serve(t, l, &Server{Handler: mux})
		for _, path := range []string{"/echo", "/direct"} {
			rc := dialRaw(t, ts.addr)
			body := strings.Repeat("0123456789", 10000)
			rc.send(t, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"+body[:50000])
			fastRequests(t, ts.url, 4) // while the handler waits for the rest
			rc.send(t, body[50000:])
			resp := rc.response(t, "POST")
			if got := bodyString(t, resp); resp.StatusCode != 200 || got != body {
				t.Errorf("%s: %d, %d bytes back, want 200 and the body", path, resp.StatusCode, len(got))
			}
		}
	})
}

// pprof's profile, mounted with Blocking next to a plain handler: another
// connection's request, sent while the profile runs, is answered at once.
func TestBlockingPprofProfile(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })
		mux.Handle("/debug/pprof/", Blocking(http.HandlerFunc(pprof.Index)))
		started := make(chan struct{})
		mux.Handle("/debug/pprof/profile", Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started) // on the handler's own goroutine: the profile begins
			pprof.Profile(w, r)
		})))
		ts := serve(t, l, &Server{Handler: mux})
		type result struct {
			status int
			n      int
			at     time.Time
			err    error
		}
		prof := make(chan result, 1)
		start := time.Now()
		go func() {
			resp, err := client(t).Get(ts.url + "/debug/pprof/profile?seconds=1")
			if err != nil {
				prof <- result{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			prof <- result{resp.StatusCode, len(b), time.Now(), err}
		}()
		<-started
		sent := time.Now()
		fastRequests(t, ts.url, 1)
		answered := time.Now()
		r := <-prof
		if r.err != nil || r.status != 200 || r.n == 0 {
			t.Fatalf("profile: %d, %d bytes, %v", r.status, r.n, r.err)
		}
		if !answered.Before(r.at) {
			t.Errorf("the other request was answered %v after the profile's end", answered.Sub(r.at))
		}
		t.Logf("another connection's request waited %v while the profile ran (%v in all)", answered.Sub(sent), r.at.Sub(start))
	})
}

// A Blocking handler's panic is the server's as any handler's: 500, and
// the log shows the panic and the stack of the handler's goroutine.
func TestBlockingPanic(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: Blocking(http.HandlerFunc(panickyBlockingHandler))})
		resp, err := client(t).Get(ts.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 500 {
			t.Errorf("status %d, want 500", resp.StatusCode)
		}
		if log := ts.log.String(); !strings.Contains(log, "blocking boom") || !strings.Contains(log, "panickyBlockingHandler") {
			t.Errorf("the log does not show the panic and its goroutine's stack:\n%s", log)
		}
	})
}

func panickyBlockingHandler(w http.ResponseWriter, r *http.Request) { panic("blocking boom") }

// Hijack from the handler's goroutine: the conn is the handler's.
func TestBlockingHijack(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
			brw.Flush()
			line, _ := brw.ReadString('\n')
			io.WriteString(c, strings.ToUpper(line))
		}))})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp := rc.response(t, "GET"); bodyString(t, resp) != "hello" {
			t.Fatal("no hello")
		}
		rc.send(t, "ping\n")
		if line, err := rc.r.ReadString('\n'); line != "PING\n" {
			t.Errorf("after the hijack: %q, %v", line, err)
		}
	})
}

// Close ends a server whose Blocking handler never returns on its own:
// Close returns, the handler's context is cancelled, and its calls after
// that fail with net.ErrClosed once they reach the socket. Shutdown waits for it as for any handler.
func TestBlockingClose(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		release := make(chan struct{})
		running := make(chan struct{})
		var writeErr error
		var wg sync.WaitGroup
		wg.Add(1)
		srv := &Server{Handler: Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer wg.Done()
			close(running)
			<-r.Context().Done()
			<-release                                   // and then some more
			_, writeErr = w.Write(make([]byte, 64<<10)) // past the buffers
		}))}
		ts := serve(t, l, srv)
		go func() {
			if resp, err := client(t).Get(ts.url); err == nil {
				resp.Body.Close()
			}
		}()
		<-running
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown with the handler running: %v, want the context's deadline", err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Close() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return with a Blocking handler running")
		}
		close(release)
		wg.Wait()
		if !errors.Is(writeErr, net.ErrClosed) {
			t.Errorf("the handler's Write after Close: %v, want net.ErrClosed", writeErr)
		}
	})
}

// Shutdown waits for a Blocking handler that outlives its client: the
// client hangs up while Shutdown waits, the handler sees its context
// cancelled and goes on, its connection's fiber still makes its calls (a
// Write then does not fail with net.ErrClosed) and holds the connection,
// and Shutdown returns only after the handler has.
func TestBlockingShutdownOutlivesClient(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		running := make(chan struct{})
		wrote := make(chan error, 1)
		release := make(chan struct{})
		var releaseOnce sync.Once
		unblock := func() { releaseOnce.Do(func() { close(release) }) }
		defer unblock()
		var ended atomic.Bool
		srv := &Server{Handler: Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer ended.Store(true)
			close(running)
			<-r.Context().Done() // the client has gone
			_, err := io.WriteString(w, "after the client left")
			wrote <- err
			<-release
		}))}
		ts := serve(t, l, srv)
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		<-running
		type result struct {
			err          error
			handlerEnded bool
		}
		shut := make(chan result, 1)
		go func() {
			err := srv.Shutdown(context.Background())
			shut <- result{err, ended.Load()}
		}()
		// Serve returns once Shutdown's step has closed the listener.
		select {
		case err := <-ts.served:
			ts.served <- err
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after Shutdown began")
		}
		rc.Close()
		if err := <-wrote; errors.Is(err, net.ErrClosed) {
			t.Errorf("the handler's Write after its client left, during Shutdown: %v; its connection's fiber no longer takes its calls", err)
		}
		select {
		case r := <-shut:
			shut <- r
			t.Errorf("Shutdown returned (%v) while a Blocking handler whose client had gone ran", r.err)
		default:
		}
		unblock()
		select {
		case r := <-shut:
			if r.err != nil {
				t.Errorf("Shutdown: %v", r.err)
			}
			if !r.handlerEnded {
				t.Error("Shutdown returned before the Blocking handler did")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Shutdown has not returned 10 s after the Blocking handler was released")
		}
	})
}

// A Blocking handler's calls reach the connection's ResponseWriter and
// body on the loop, made by the connection's fiber, never from the
// handler's goroutine (the connection's state is the loop's alone): a
// writer and a body around the connection's, which note each call made
// off the loop, see none. Without -race too.
func TestBlockingCallsOnLoop(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var mu sync.Mutex
		var off []string
		note := func(call string) {
			if !l.InFiber() {
				mu.Lock()
				off = append(off, call)
				mu.Unlock()
			}
		}
		blocking := Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				t.Error(err)
			}
			r.Body.Close()
			w.WriteHeader(http.StatusOK)
			w.Write(b)
			http.NewResponseController(w).Flush()
			io.WriteString(w, " and more")
		}))
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = notedBody{r.Body, note}
			blocking.ServeHTTP(notedWriter{w, note}, r)
		})})
		resp, err := client(t).Post(ts.url, "text/plain", strings.NewReader("a body"))
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != "a body and more" {
			t.Errorf("got %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(off) > 0 {
			t.Errorf("calls made off the loop, from the handler's goroutine: %q", off)
		}
	})
}

// notedWriter passes the calls of a ResponseWriter on, each noted first.
type notedWriter struct {
	http.ResponseWriter
	note func(call string)
}

func (w notedWriter) WriteHeader(code int) {
	w.note("WriteHeader")
	w.ResponseWriter.WriteHeader(code)
}

func (w notedWriter) Write(p []byte) (int, error) {
	w.note("Write")
	return w.ResponseWriter.Write(p)
}

func (w notedWriter) FlushError() error {
	w.note("Flush")
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w notedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// notedBody passes the calls of a request body on, each noted first.
type notedBody struct {
	io.ReadCloser
	note func(call string)
}

func (b notedBody) Read(p []byte) (int, error) {
	b.note("Body.Read")
	return b.ReadCloser.Read(p)
}

func (b notedBody) Close() error {
	b.note("Body.Close")
	return b.ReadCloser.Close()
}

// Outside this package's Server, Blocking is the handler itself.
func TestBlockingOutsideServer(t *testing.T) {
	var w bytes.Buffer
	rw := &plainWriter{h: http.Header{}, w: &w}
	Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(*plainWriter); !ok {
			t.Errorf("the handler got a %T", w)
		}
		io.WriteString(w, "direct")
	})).ServeHTTP(rw, httptestRequest())
	if w.String() != "direct" {
		t.Errorf("wrote %q", w.String())
	}
}

type plainWriter struct {
	h http.Header
	w io.Writer
}

func (p *plainWriter) Header() http.Header         { return p.h }
func (p *plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *plainWriter) WriteHeader(int)             {}

func httptestRequest() *http.Request {
	r, _ := http.ReadRequest(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\nHost: x\r\n\r\n")))
	return r
}

// sleepyHandlerForWatchdog blocks its goroutine, and is named so that the
// watchdog's report can name it.
func sleepyHandlerForWatchdog(w http.ResponseWriter, r *http.Request) {
	time.Sleep(300 * time.Millisecond)
	io.WriteString(w, "slept")
}

// With the watchdog on, a handler that blocks the loop is reported by
// name, with what to do; served with Blocking, it is not reported at all.
func TestWatchdogNamesBlockingHandler(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var reports []core.SlowCallback
			l, err := eventloop.NewWithDriver(name, core.WithWatchdog(50*time.Millisecond, func(s core.SlowCallback) {
				mu.Lock()
				reports = append(reports, s)
				mu.Unlock()
			}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // after serve's, which stops the loop
				if err := l.Close(); err != nil {
					t.Errorf("loop Close: %v", err)
				}
			})
			mux := http.NewServeMux()
			mux.HandleFunc("/sleepy", sleepyHandlerForWatchdog)
			mux.Handle("/blocking", Blocking(http.HandlerFunc(sleepyHandlerForWatchdog)))
			ts := serve(t, l, &Server{Handler: mux})
			get := func(path string) []core.SlowCallback {
				resp, err := client(t).Get(ts.url + path)
				if err != nil {
					t.Fatal(err)
				}
				if b := bodyString(t, resp); b != "slept" {
					t.Fatalf("%s: %q", path, b)
				}
				time.Sleep(100 * time.Millisecond) // the Done report
				mu.Lock()
				defer mu.Unlock()
				got := reports
				reports = nil
				return got
			}
			var running *core.SlowCallback
			for _, s := range get("/sleepy") {
				if !s.Done {
					running = &s
				}
			}
			if running == nil {
				t.Fatal("no report of the handler that blocks the loop")
			}
			t.Log(strings.SplitN(running.String(), "\n", 2)[0])
			for _, want := range []string{"the HTTP handler github.com/revoltgo/eventloop/httpserver.sleepyHandlerForWatchdog ", "httpserver.Blocking"} {
				if !strings.Contains(running.Hint, want) || !strings.Contains(running.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, running)
				}
			}
			for _, s := range get("/blocking") {
				t.Errorf("served with Blocking, the handler was reported: %s", s)
			}
		})
	}
}
