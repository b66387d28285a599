package httpserver

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/revoltgo/eventloop/socket"
)

// conn is one connection. A fiber of its loop serves it from its accept
// to its first wait for a request; without TLS, it then waits as a served
// socket conn (socket.Conn.Serve), holding no fiber, and each batch of
// requests is served in the fiber that its bytes come in (onBytes); over
// TLS the fiber serves it to the end. Everything in it belongs to those
// fibers and to the loop (the client-gone watch, Shutdown's and Close's
// steps), never to another goroutine, except what a handler hands to one.
type conn struct {
	srv *Server
	ls  *loopState
	raw *socket.Conn
	rwc transport       // raw, or TLS over it
	tls *socket.TLSConn // nil without TLS
	// tlsState is the handshake's result, which requests carry (Request.TLS).
	tlsState *tls.ConnectionState

	remoteAddr string
	cr         connReader
	cw         connWriter
	br         *bufio.Reader // nil while idle
	bw         *bufio.Writer // nil between responses
	res        response
	cur        *reqState // the request whose handler runs

	state      http.ConnState
	prev, next *conn // the loop's list

	rd, wd     time.Time // the deadlines last set, to skip setting them again
	lastMethod string
	hijacked   bool
	ended      bool           // end has run
	onData     socket.Handler // c.onBytes, made once
	werr       error          // the first write error
	closeWrite bool           // request body left on the wire: half-close, then wait a little

	// Batching (batch.go): the write buffer holds whole responses up to
	// wire offset heldTo, which wait for the batch's next ones; a
	// microtask (flushHeld) sends them if the conn's fiber suspends first.
	heldTo      int64
	flushQueued bool
	writing     int    // writes under way (the conn's fiber's, and flushHeld's)
	flushHeldFn func() // c.flushHeld, made once

	watch       socket.PeerWatch // the client-gone watch (context.go)
	gone        func()           // c.clientGone, made once
	watchWanted bool             // start it once the request body is read

	// Over TLS the watch is a fiber reading one byte (context.go).
	tlsWatch tlsWatch
	stash    byte // the byte it read, the next request's first
	stashed  bool

	// The request's header as it came, for the one check that
	// http.ReadRequest leaves no trace of (Content-Length beside chunked).
	capture   []byte
	capturing bool
	keys      []string // sorting the header keys of a response
}

// read and write are the conn's: straight to the socket without TLS, not
// through the transport interface, on the path of every request.
func (c *conn) read(p []byte) (int, error) {
	if c.tls == nil {
		return c.raw.Read(p)
	}
	if c.stashed && len(p) > 0 {
		p[0], c.stashed = c.stash, false
		return 1, nil
	}
	return c.tls.Read(p)
}

func (c *conn) write(p []byte) (int, error) {
	if testHookWrite != nil {
		testHookWrite(p)
	}
	if c.tls == nil {
		return c.raw.Write(p)
	}
	return c.tls.Write(p)
}

// testHookWrite, if set, sees each write of every conn before it is
// made, in the writing fiber.
var testHookWrite func(p []byte)

// transport is what a conn reads and writes: a *socket.Conn, or a
// *socket.TLSConn over one.
type transport interface {
	net.Conn
	CloseWrite() error
}

func (c *conn) init(config *tls.Config) {
	c.cr.c, c.cw.c, c.res.c = c, c, c
	c.rwc = c.raw
	if config != nil {
		c.tls = socket.TLSServer(c.raw, config)
		c.rwc = c.tls
	}
	c.remoteAddr = addrString(c.raw.RemoteAddr())
	c.onData = c.onBytes
	c.flushHeldFn = c.flushHeld
}

// Bounds net/http uses too: what the server reads of a body the handler
// left (beyond it the connection closes), and how long a connection
// half-closed with unread input waits for its client to close before the
// close could reset what the client has not read yet (RFC 9112 9.6).
const (
	maxPostHandlerReadBytes = 256 << 10
	rstAvoidanceDelay       = 500 * time.Millisecond
)

// serve runs in the conn's first fiber: the TLS handshake, then the wait
// for the first request.
func (c *conn) serve() {
	waiting := false
	defer func() {
		if !waiting {
			c.end()
		}
	}()
	srv := c.srv
	if c.tls != nil && !c.handshake() {
		return
	}
	if d := srv.readHeaderTimeout(); d > 0 {
		if t := time.Now().Add(d); c.rd.IsZero() || t.Before(c.rd) {
			c.setReadDeadline(t)
		}
	}
	if c.tls == nil {
		waiting = c.raw.Serve(c.onData) == nil
		return
	}
	if c.awaitRequest() {
		c.requests(true)
	}
}

// onBytes serves the requests whose first bytes have come to the served
// conn (socket.Handler), in the fiber they came in, until the conn waits
// for the next one, holding no fiber again, or is done. Its last call
// (the client closed, the idle time ran out, Shutdown, Close, the loop's
// Close) ends the conn.
func (c *conn) onBytes(_ *socket.Conn, in []byte, err error) int {
	if err != nil {
		c.end()
		return 0
	}
	waiting := false
	defer func() {
		if !waiting {
			c.raw.StopServing() // no last call: end closes it, or a Hijack took it
			c.end()
		}
	}()
	c.takeBytes(in)
	waiting = c.requests(c.state == http.StateNew)
	return len(in)
}

// requests serves the request whose first bytes are in the read buffer
// and those that follow, the first of the conn's (first) or not. True:
// the conn waits for the next one as a served conn, holding no fiber
// (without TLS); false: it is done (closed, hijacked, or no keep-alive).
func (c *conn) requests(first bool) bool {
	srv := c.srv
	for ; ; first = false {
		if !first {
			// ReadHeaderTimeout counts from the first byte of a request
			// that followed another, from the accept for the first one.
			c.setReadTimeout(srv.readHeaderTimeout())
		}
		c.setState(http.StateActive)
		if !c.serveRequest() {
			return false
		}
		c.setState(http.StateIdle)
		if !srv.keepAlives() {
			return false
		}
		c.setReadTimeout(srv.idleTimeout())
		if c.bytesBuffered() {
			continue // pipelined
		}
		if c.tls == nil {
			c.putReader()
			return true
		}
		if !c.awaitRequest() {
			return false
		}
	}
}

// awaitRequest waits for the first bytes of the next request over TLS
// into the loop's scratch buffer, holding no read buffer meanwhile, then
// takes one and hands it those bytes before anything can suspend the
// fiber (the scratch buffer is the next reader's). False: the client
// closed, the idle time ran out, or the server closed the conn; nothing
// is answered.
func (c *conn) awaitRequest() bool {
	c.putReader()
	n, _ := c.read(c.ls.scratch[:])
	if n == 0 {
		return false
	}
	c.takeBytes(c.ls.scratch[:n])
	return true
}

// takeBytes takes a read buffer and fills it with p, a buffer that is not
// the conn's (the scratch buffer, or a served conn's in), before anything
// can suspend the fiber; what the read buffer cannot hold is copied.
func (c *conn) takeBytes(p []byte) {
	c.br = c.ls.getReader(&c.cr)
	c.cr.pending = p
	c.cr.remain = math.MaxInt64
	c.br.Peek(1)
	if len(c.cr.pending) > 0 {
		c.cr.pending = bytes.Clone(c.cr.pending)
	}
}

// bytesBuffered reports whether the client's next bytes are here: in the
// read buffer, or in the rest of the read behind it (which a request that
// ends where the buffer ends leaves whole).
func (c *conn) bytesBuffered() bool {
	return c.br != nil && (c.br.Buffered() > 0 || len(c.cr.pending) > 0)
}

// putReader gives the read buffer back while the conn waits.
func (c *conn) putReader() {
	if c.br != nil {
		c.ls.putReader(c.br)
		c.br = nil
	}
}

// serveRequest reads a request, runs the handler and finishes the
// response; false: the connection is done (closed, or hijacked).
func (c *conn) serveRequest() bool {
	rs := &reqState{}
	rs.ctx.c = c
	req, err := c.readRequest(rs)
	if err != nil {
		c.replyError(err)
		return false
	}
	c.cur = rs
	w := &c.res
	w.reset(req)
	if req.Body != http.NoBody && req.Body != nil {
		rs.body = body{c: c, src: req.Body}
		req.Body = &rs.body
		w.body = &rs.body
	}

	if expectsContinue(req) {
		if req.ProtoAtLeast(1, 1) && req.ContentLength != 0 && w.body != nil {
			w.canWriteContinue, w.ecr = true, true
		}
	} else if len(req.Header["Expect"]) > 0 && req.Header.Get("Expect") != "" {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusExpectationFailed)
		w.finish()
		c.endRequest(rs)
		return false
	}
	if req.Method == "PRI" && req.ProtoMajor == 2 {
		w.closeAfterReply = true
	}

	h := c.srv.handler()
	if req.RequestURI == "*" && req.Method == "OPTIONS" && !c.srv.DisableGeneralOptionsHandler {
		h = globalOptionsHandler{}
	}
	if c.runHandler(h, w, req) {
		c.endRequest(rs)
		return false
	}
	rs.ctx.cancel()
	if c.hijacked {
		c.endRequest(rs)
		return false
	}
	w.finish()
	keep := w.shouldReuseConnection()
	c.endRequest(rs)
	if c.wd != (time.Time{}) {
		c.setWriteDeadline(time.Time{})
	}
	return keep
}

// endRequest lets go of what the request held.
func (c *conn) endRequest(rs *reqState) {
	rs.ctx.cancel()
	c.stopWatch()
	c.watchWanted = false
	rs.body.closed = true
	c.cur = nil
	c.res.req, c.res.body = nil, nil
	c.res.releaseBuf()
	if c.bw != nil && !c.hijacked && c.bw.Buffered() == 0 {
		c.ls.putWriter(c.bw)
		c.bw = nil
	}
}

// runHandler calls the handler; true if it panicked (the connection is
// then done).
func (c *conn) runHandler(h http.Handler, w *response, req *http.Request) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked = true
			c.handlerPanicked(v)
		}
	}()
	h.ServeHTTP(w, req)
	return false
}

// handlerPanicked logs a handler's panic (not http.ErrAbortHandler, as
// net/http) and answers 500 if nothing of the response has left yet;
// otherwise the client sees the connection close mid-response.
func (c *conn) handlerPanicked(v any) {
	if e, ok := v.(*offLoopEnd); ok {
		// A Blocking handler's: its value, and its goroutine's stack.
		c.srv.logf("http: panic serving %v: %v\n%s", c.remoteAddr, e.v, e.stack)
	} else if v != http.ErrAbortHandler {
		const size = 64 << 10
		buf := make([]byte, size)
		buf = buf[:runtime.Stack(buf, false)]
		c.srv.logf("http: panic serving %v: %v\n%s", c.remoteAddr, v, buf)
	}
	if c.cur != nil {
		c.cur.ctx.cancel()
	}
	if c.hijacked || v == http.ErrAbortHandler {
		return
	}
	w := &c.res
	// A send under way (a batch's) may carry the start of this response.
	if w.wroteHeader && c.cw.n != w.wireMark || c.writing > 0 {
		return
	}
	proto := "HTTP/1.0 "
	if w.is11 {
		proto = "HTTP/1.1 "
	}
	const text = "500 Internal Server Error"
	msg := proto + text + "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: " +
		fmt.Sprint(len(text)) + "\r\n\r\n"
	if !w.isHEAD {
		msg += text
	}
	if c.bw == nil {
		c.rwc.Write([]byte(msg))
		return
	}
	c.dropUnheld()
	c.bw.WriteString(msg)
	c.bw.Flush()
}

// end closes the connection (unless a handler hijacked it) and returns
// its buffers, once; it runs however the conn's fiber or its served
// conn ends, Loop.Close's unwinding included.
func (c *conn) end() {
	if c.ended {
		return
	}
	c.ended = true
	c.stopWatch()
	if c.cur != nil {
		c.cur.ctx.cancel()
		c.cur = nil
	}
	if !c.hijacked {
		if c.bw != nil {
			c.bw.Flush()
			c.ls.putWriter(c.bw)
			c.bw = nil
		}
		if c.closeWrite {
			c.lingerClose()
		}
		c.rwc.Close()
		if c.br != nil {
			c.ls.putReader(c.br)
			c.br = nil
		}
		c.res.releaseBuf()
		c.ls.remove(c)
		c.setState(http.StateClosed)
		return
	}
	c.ls.remove(c)
}

// lingerClose half-closes the connection and reads what the client still
// sends, until it closes or rstAvoidanceDelay passes, so that closing
// with unread input (which sends a reset) cannot discard the response
// before the client has read it.
func (c *conn) lingerClose() {
	if c.rwc.CloseWrite() != nil {
		return
	}
	c.setReadDeadline(time.Now().Add(rstAvoidanceDelay))
	for {
		if _, err := c.rwc.Read(c.ls.scratch[:]); err != nil {
			return
		}
	}
}

// shutdownGrace gives a connection that has sent nothing newConnGrace
// before Shutdown's read deadline closes it.
func (c *conn) shutdownGrace() {
	if t := time.Now().Add(newConnGrace); c.rd.IsZero() || t.Before(c.rd) {
		c.setReadDeadline(t)
	}
}

func (c *conn) setState(st http.ConnState) {
	c.state = st
	if h := c.srv.ConnState; h != nil {
		h(c.rwc, st)
	}
}

// setReadTimeout sets the read deadline d from now; none for 0.
func (c *conn) setReadTimeout(d time.Duration) {
	if d > 0 {
		c.setReadDeadline(time.Now().Add(d))
	} else {
		c.setReadDeadline(time.Time{})
	}
}

// setReadDeadline skips the call when nothing changes (no timeouts: no
// call at all on the hot path).
func (c *conn) setReadDeadline(t time.Time) {
	if t.IsZero() && c.rd.IsZero() {
		return
	}
	c.rd = t
	c.rwc.SetReadDeadline(t)
}

// setWriteDeadline is setReadDeadline for writes, kept apart: one for
// both would take a method value of c.rwc, which may allocate.
func (c *conn) setWriteDeadline(t time.Time) {
	if t.IsZero() && c.wd.IsZero() {
		return
	}
	c.wd = t
	c.rwc.SetWriteDeadline(t)
}

// connReader is what the read buffer reads from: the bytes awaitRequest
// got first, then the socket, within the header's limit while a header is
// read (net/http's connReader).
type connReader struct {
	c       *conn
	pending []byte
	remain  int64
}

func (cr *connReader) Read(p []byte) (int, error) {
	if cr.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > cr.remain {
		p = p[:cr.remain]
	}
	var n int
	var err error
	if len(cr.pending) > 0 {
		n = copy(p, cr.pending)
		cr.pending = cr.pending[n:]
	} else {
		n, err = cr.c.read(p)
	}
	cr.remain -= int64(n)
	if c := cr.c; c.capturing && n > 0 {
		c.capture = append(c.capture, p[:n]...)
	}
	return n, err
}

func (cr *connReader) hitLimit() bool { return cr.remain <= 0 }

// connWriter is what the write buffer writes to: it counts the bytes
// that left (a panic can still be answered with 500 while none of the
// response has), and a write error cancels the request's context, since
// the client is gone.
type connWriter struct {
	c *conn
	n int64
	// keep, while set, takes what the write buffer flushes, which then
	// does not leave (dropUnheld).
	keep *[]byte
}

func (cw *connWriter) Write(p []byte) (int, error) {
	if cw.keep != nil {
		*cw.keep = append(*cw.keep, p...)
		return len(p), nil
	}
	c := cw.c
	c.writing++
	n, err := c.write(p)
	c.writing--
	c.wrote(int64(n), err)
	return n, err
}

// wrote counts n bytes sent, and keeps the first write error, which
// cancels the request's context.
func (c *conn) wrote(n int64, err error) {
	c.cw.n += n
	if err != nil && c.werr == nil {
		c.werr = err
		if c.cur != nil {
			c.cur.ctx.cancel()
		}
	}
}

// writer is the write buffer, taken from the loop's free list when the
// response first needs it.
func (c *conn) writer() *bufio.Writer {
	if c.bw == nil {
		c.bw = c.ls.getWriter(&c.cw)
	}
	return c.bw
}

// globalOptionsHandler answers "OPTIONS *" as net/http's does.
type globalOptionsHandler struct{}

func (globalOptionsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0")
	if r.ContentLength != 0 {
		mb := http.MaxBytesReader(w, r.Body, 4<<10)
		// A body over the limit closes the connection, as net/http's
		// MaxBytesReader makes it (that hook is unexported: said here).
		var tooLarge *http.MaxBytesError
		if _, err := io.Copy(io.Discard, mb); errors.As(err, &tooLarge) {
			w.Header().Set("Connection", "close")
		}
	}
}
