package httpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// reqCtx is a request's context. Every request gets one, so it costs
// little until used: its channel (a context.WithCancel of its own) is
// made by the first Done, and that first Done is also what starts
// watching the connection for the client's going (beginWatch): a
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

// reqState is what a request allocates: the request, its context and
// its body in one.
type reqState struct {
	req  http.Request
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
	if rs == nil || &rs.ctx != x || c.hijacked || c.watch.Watching() || c.tlsWatch.running || x.isCanceled() {
		return
	}
	if c.res.body != nil && !rs.body.sawEOF {
		c.watchWanted = true
		return
	}
	if c.bytesBuffered() || c.stashed {
		return
	}
	if c.tls != nil {
		c.beginTLSWatch()
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

// tlsWatch is the client-gone watch over TLS. The socket's bytes there are
// records, and a peek cannot tell a client's close_notify from a
// pipelined request: a fiber reads one byte through TLS instead, as
// net/http's background read does. The end of the stream or an error
// cancels the request; a byte is kept for the next request's read.
type tlsWatch struct {
	running bool
	aborted bool             // stopWatch ended the read with a deadline
	waiter  *core.Suspension // stopWatch's, resumed when the fiber ends
}

func (c *conn) beginTLSWatch() {
	w := &c.tlsWatch
	w.running = true
	c.ls.l.Defer(func(core.CallbackID) {
		var b [1]byte
		n, err := c.tls.Read(b[:])
		w.running = false
		if testHookTLSWatch != nil {
			testHookTLSWatch(n, err)
		}
		switch {
		case n > 0:
			c.stash, c.stashed = b[0], true
		case w.aborted || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed):
			// Stopped, the read deadline of the request, or the server's
			// own close: the client has not gone.
		default:
			c.clientGone()
		}
		// Once Close has begun it unwinds stopWatch's fiber itself.
		if s := w.waiter; s != nil && !c.ls.l.IsClosed() {
			w.waiter = nil
			s.Resume(nil)
		}
	})
}

// stopWatch stops the watch; over TLS it ends the watching fiber's read
// and waits for the fiber, so that the next read of the conn is the
// only one and finds the byte it may have kept.
func (c *conn) stopWatch() {
	c.watch.Stop()
	w := &c.tlsWatch
	if !w.running {
		return
	}
	w.aborted = true
	c.raw.SetReadDeadline(aLongTimeAgo)
	s := c.ls.l.Suspension()
	w.waiter = s
	if _, err := s.Suspend(); err != nil {
		w.waiter = nil // the loop is closing: the conn goes with it
	}
	w.aborted = false
	c.raw.SetReadDeadline(c.rd)
}

// testHookTLSWatch, if set, sees what the TLS watch read.
var testHookTLSWatch func(n int, err error)

// aLongTimeAgo is a deadline that has passed: it ends a waiting read.
var aLongTimeAgo = time.Unix(1, 0)
