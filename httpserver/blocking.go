package httpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Blocking returns a handler that serves h on a goroutine of its own, so
// that a handler that blocks its goroutine can share a Server, and a mux,
// with the handlers that run on the loop without stopping the loop while
// it blocks. The standard library's own handlers that block are
// net/http/pprof's Profile and Trace (they sleep for the seconds asked),
// its Index, which serves the named profiles (heap?seconds=N, a delta,
// waits N seconds), http.TimeoutHandler (it waits on a channel for its
// handler), and any handler that calls net/http's client, database/sql,
// time.Sleep, or waits on a channel or a sync.Mutex held across I/O:
//
//	mux.Handle("/debug/pprof/", httpserver.Blocking(http.HandlerFunc(pprof.Index)))
//	mux.Handle("/debug/pprof/profile", httpserver.Blocking(http.HandlerFunc(pprof.Profile)))
//	mux.Handle("/debug/pprof/trace", httpserver.Blocking(http.HandlerFunc(pprof.Trace)))
//	mux.Handle("/report", httpserver.Blocking(http.TimeoutHandler(report, 5*time.Second, "too slow")))
//
// (pprof's Cmdline and Symbol answer at once and may run on the loop;
// ExampleBlocking mounts them all.)
//
// h may use its ResponseWriter (Header, Write, WriteHeader, Flush,
// Hijack, and http.ResponseController's deadlines and EnableFullDuplex)
// and its Request.Body from its goroutine, one call at a time, as
// net/http's handlers do: each call is handed to the connection's fiber,
// which makes it on the loop and hands back the result, so the
// connection's state is never touched from two goroutines. Every call
// costs a trip to the loop (a few microseconds): fine for the handlers
// that block, not for the ones that stream a lot in small writes. The
// request's context is cancelled as any handler's; the loop serves the
// other connections meanwhile, and Shutdown waits for h as for any
// handler. Close does not wait: h learns of it from its context or from a
// write that fails, as with net/http; a handler that never returns keeps
// its goroutine, as it would with net/http. A call made after h's
// ServeHTTP returned (from a goroutine it left behind), or after the loop
// closed, fails with an error wrapping net.ErrClosed, or does nothing
// where there is no error to return (Header keeps working: the map is the
// handler's own).
//
// Outside this package's Server (net/http's, or a goroutine that is not a
// fiber of the loop), Blocking calls h as it is.
func Blocking(h http.Handler) http.Handler {
	if h == nil {
		panic("httpserver: Blocking called with a nil handler")
	}
	return blocking{h}
}

type blocking struct{ h http.Handler }

func (b blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l := LoopFromContext(r.Context())
	if l == nil || !l.InFiber() {
		b.h.ServeHTTP(w, r)
		return
	}
	o := &offLoop{
		w:      w,
		header: w.Header(),
		ops:    make(chan func()),
		done:   make(chan struct{}, 1),
		gone:   make(chan struct{}),
	}
	r2 := new(http.Request)
	*r2 = *r
	if r.Body != nil && r.Body != http.NoBody {
		r2.Body = &offBody{o: o, src: r.Body}
	}
	end := make(chan offLoopEnd, 1)
	go func() {
		var e offLoopEnd
		defer func() {
			if v := recover(); v != nil {
				e.panicked, e.v = true, v
				if v != http.ErrAbortHandler {
					buf := make([]byte, 64<<10)
					e.stack = buf[:runtime.Stack(buf, false)]
				}
			}
			end <- e
		}()
		b.h.ServeHTTP(o, r2)
	}()
	defer close(o.gone)
	for {
		m, err := core.Await(l, func(ctx context.Context) (offLoopMsg, error) {
			select {
			case f := <-o.ops:
				return offLoopMsg{op: f}, nil
			case e := <-end:
				return offLoopMsg{end: &e}, nil
			case <-ctx.Done(): // the loop is closing
				return offLoopMsg{}, ctx.Err()
			}
		})
		switch {
		case err != nil:
			return
		case m.end != nil:
			if m.end.panicked {
				if m.end.stack == nil {
					panic(m.end.v)
				}
				panic(m.end)
			}
			return
		}
		m.op()
		o.done <- struct{}{}
	}
}

// offLoopMsg is what the connection's fiber gets from a Blocking handler's
// goroutine: a call to make, or the handler's end.
type offLoopMsg struct {
	op  func()
	end *offLoopEnd
}

// offLoopEnd is how a Blocking handler ended: returned, or panicked with
// v (its goroutine's stack taken there, for the server's log).
type offLoopEnd struct {
	panicked bool
	v        any
	stack    []byte
}

func (e *offLoopEnd) String() string { return fmt.Sprint(e.v) }

// errOffLoopGone is what a Blocking handler's call returns once the
// connection's fiber no longer takes calls.
var errOffLoopGone = fmt.Errorf("httpserver: call on the ResponseWriter of a Blocking handler after its ServeHTTP returned, or after the server or its loop closed: %w", net.ErrClosed)

// offLoop is the ResponseWriter a Blocking handler gets: every call is
// made by the connection's fiber.
type offLoop struct {
	w      http.ResponseWriter // the fiber's alone
	header http.Header
	ops    chan func()   // the handler's goroutine to the fiber
	done   chan struct{} // the fiber to the handler's goroutine: made
	gone   chan struct{} // closed when the fiber takes no more calls
}

var (
	_ http.ResponseWriter = (*offLoop)(nil)
	_ http.Flusher        = (*offLoop)(nil)
	_ http.Hijacker       = (*offLoop)(nil)
)

// call has f made by the connection's fiber and waits for it; false if
// the fiber takes no more calls.
func (o *offLoop) call(f func()) bool {
	select {
	case o.ops <- f:
	case <-o.gone:
		return false
	}
	select {
	case <-o.done:
		return true
	case <-o.gone:
		// The loop closed while f ran, or after: f's result, if any, is
		// still there.
		select {
		case <-o.done:
			return true
		default:
			return false
		}
	}
}

func (o *offLoop) Header() http.Header { return o.header }

func (o *offLoop) Write(p []byte) (n int, err error) {
	if !o.call(func() { n, err = o.w.Write(p) }) {
		return 0, errOffLoopGone
	}
	return n, err
}

func (o *offLoop) WriteHeader(code int) {
	o.call(func() { o.w.WriteHeader(code) })
}

func (o *offLoop) Flush() { o.FlushError() }

// FlushError is http.ResponseController's Flush.
func (o *offLoop) FlushError() error { return o.control((*http.ResponseController).Flush) }

func (o *offLoop) Hijack() (c net.Conn, brw *bufio.ReadWriter, err error) {
	if !o.call(func() { c, brw, err = http.NewResponseController(o.w).Hijack() }) {
		return nil, nil, errOffLoopGone
	}
	return c, brw, err
}

func (o *offLoop) SetReadDeadline(t time.Time) error {
	return o.control(func(rc *http.ResponseController) error { return rc.SetReadDeadline(t) })
}

func (o *offLoop) SetWriteDeadline(t time.Time) error {
	return o.control(func(rc *http.ResponseController) error { return rc.SetWriteDeadline(t) })
}

func (o *offLoop) EnableFullDuplex() error {
	return o.control((*http.ResponseController).EnableFullDuplex)
}

// control makes a call of http.ResponseController's that returns only an
// error on the connection's fiber.
func (o *offLoop) control(f func(*http.ResponseController) error) (err error) {
	if !o.call(func() { err = f(http.NewResponseController(o.w)) }) {
		return errOffLoopGone
	}
	return err
}

// offBody is a Blocking handler's Request.Body: read by the fiber.
type offBody struct {
	o   *offLoop
	src io.ReadCloser
}

func (b *offBody) Read(p []byte) (n int, err error) {
	if !b.o.call(func() { n, err = b.src.Read(p) }) {
		return 0, errOffLoopGone
	}
	return n, err
}

func (b *offBody) Close() (err error) {
	if !b.o.call(func() { err = b.src.Close() }) {
		return nil
	}
	return err
}
