package httpserver

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// reqCtx is a request's context. Every request gets one, so it costs
// little until used: its channel (a context.WithCancel of its own) is
// made by the first Done, and that first Done is also what starts
// watching the connection for the client's going (watch_unix.go, watch_windows.go): a
// handler that never asks whether the client is still there pays nothing
// for the question. Packages that derive contexts from it (WithCancel,
// WithTimeout, AfterFunc) call Done, and find the inner context through
// Value, so they attach to it without a goroutine of their own.
//
// It is cancelled when the handler returns, when a write to the client
// fails, when the watch sees the client close or reset, and by Close.
type reqCtx struct {
	c *conn

	mu       sync.Mutex
	inner    context.Context
	cancelFn context.CancelFunc
	canceled bool
}

var _ context.Context = (*reqCtx)(nil)

func (x *reqCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (x *reqCtx) Done() <-chan struct{} {
	x.mu.Lock()
	start := false
	if x.inner == nil {
		x.inner, x.cancelFn = context.WithCancel(context.Background())
		if x.canceled {
			x.cancelFn()
		} else {
			start = true
		}
	}
	d := x.inner.Done()
	x.mu.Unlock()
	if start {
		x.c.wantWatch(x)
	}
	return d
}

func (x *reqCtx) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.canceled {
		return context.Canceled
	}
	return nil
}

func (x *reqCtx) Value(key any) any {
	switch key {
	case loopKey:
		return x.c.ls.l
	case http.LocalAddrContextKey:
		return x.c.raw.LocalAddr()
	}
	x.mu.Lock()
	inner := x.inner
	x.mu.Unlock()
	if inner != nil {
		return inner.Value(key)
	}
	return nil
}

func (x *reqCtx) String() string { return "httpserver request context" }

// cancel is safe from any goroutine.
func (x *reqCtx) cancel() {
	x.mu.Lock()
	if !x.canceled {
		x.canceled = true
		if x.cancelFn != nil {
			x.cancelFn()
		}
	}
	x.mu.Unlock()
}

func (x *reqCtx) isCanceled() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.canceled
}

// reqState is what a request allocates: its context and its body in one.
type reqState struct {
	ctx  reqCtx
	body body
	// For parseFast: the URL, and the values' slices of a header of up to
	// len(strs) fields.
	url  url.URL
	strs [8]string
}

type contextKey struct{ name string }

var loopKey = &contextKey{"loop"}

// LoopFromContext returns the loop that serves the request whose context
// ctx is (or derives from), or nil. A handler uses it to wait without
// blocking the loop: core.Await(LoopFromContext(r.Context()), slowCall).
func LoopFromContext(ctx context.Context) *core.Loop {
	l, _ := ctx.Value(loopKey).(*core.Loop)
	return l
}

// wantWatch asks the loop, from any goroutine, to watch the connection
// for the client's going while the request is served.
func (c *conn) wantWatch(x *reqCtx) {
	l := c.ls.l
	if l.InFiber() {
		c.beginWatch(x)
		return
	}
	_ = l.Post(func() { c.beginWatch(x) })
}

// beginWatch starts the watch, on the loop, once the request body is read
// (before, the client's bytes are the body's); with bytes of a next
// request already read, there is nothing to watch for (net/http stops
// watching there too).
func (c *conn) beginWatch(x *reqCtx) {
	rs := c.cur
	// Over TLS the socket's bytes are records, which a peek cannot tell
	// from the next request's: no watch (a failed write still cancels).
	if rs == nil || &rs.ctx != x || c.hijacked || c.tls != nil || c.watch.Watching() || x.isCanceled() {
		return
	}
	if c.res.body != nil && !rs.body.sawEOF {
		c.watchWanted = true
		return
	}
	if c.br != nil && c.br.Buffered() > 0 {
		return
	}
	// Bytes, or a failed start (the conn closed meanwhile), leave nothing
	// to watch for.
	if c.gone == nil {
		c.gone = c.clientGone
	}
	_ = c.watch.Start(c.raw, c.gone)
}

// clientGone cancels the watched request's context: the client closed or
// reset the connection while its handler ran (the watch is stopped before
// the next request).
func (c *conn) clientGone() {
	if rs := c.cur; rs != nil {
		rs.ctx.cancel()
	}
}

// bodyDone is called when the handler has read the body to its end.
func (c *conn) bodyDone() {
	if c.watchWanted && c.cur != nil {
		c.watchWanted = false
		c.beginWatch(&c.cur.ctx)
	}
}

func (c *conn) stopWatch() { c.watch.Stop() }
