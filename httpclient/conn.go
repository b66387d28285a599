package httpclient

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// persistConn is one connection of the pool: used by one request at a
// time, from RoundTrip until its response body is done.
type persistConn struct {
	t    *Transport
	key  connKey
	raw  *socket.Conn
	conn net.Conn // raw, or a *socket.TLSConn over it
	br   *bufio.Reader
	bw   *bufio.Writer

	reused   bool  // taken from the pool
	gotByte  bool  // a byte of this request's response was read
	nwritten int64 // bytes of this request written
	limit    int64 // bytes the header may still take; < 0: no limit

	// Under t.mu.
	idleGen   uint64 // counts the pool's takes and puts
	idleAt    time.Time
	idleTimer core.CallbackID

	canceled  atomic.Bool // the request's context ended
	closeOnce sync.Once
}

// dial connects to addr (with TLS for https) and counts nothing: the
// caller holds the slot.
func (t *Transport) dial(ctx context.Context, req *http.Request, key connKey) (*persistConn, error) {
	raw, err := socket.DialContext(ctx, t.Loop, "tcp", key.addr)
	if err != nil {
		return nil, err
	}
	pc := &persistConn{t: t, key: key, raw: raw, conn: raw}
	if req.URL.Scheme == "https" {
		cfg := t.TLSClientConfig
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" || len(cfg.NextProtos) == 0 {
			cfg = cfg.Clone()
			if cfg.ServerName == "" {
				cfg.ServerName = req.URL.Hostname()
			}
			if len(cfg.NextProtos) == 0 {
				cfg.NextProtos = []string{"http/1.1"}
			}
		}
		tc := socket.TLSClient(raw, cfg)
		hctx := ctx
		if d := t.TLSHandshakeTimeout; d > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		if err := tc.HandshakeContext(hctx); err != nil {
			tc.Close()
			if ctx.Err() == nil && hctx.Err() != nil {
				return nil, &timeoutError{"net/http: TLS handshake timeout"}
			}
			return nil, err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "" && p != "http/1.1" {
			tc.Close()
			return nil, fmt.Errorf("httpclient: server chose protocol %q over ALPN; only http/1.1 is spoken", p)
		}
		pc.conn = tc
	}
	pc.br = bufio.NewReaderSize(pc, 4096)
	pc.bw = bufio.NewWriterSize(writeCounter{pc}, 4096)
	return pc, nil
}

// Read is the bufio.Reader's: it notes the response's first byte and
// bounds the header.
func (pc *persistConn) Read(p []byte) (int, error) {
	if pc.limit >= 0 {
		if pc.limit == 0 {
			return 0, errHeaderTooLong
		}
		if int64(len(p)) > pc.limit {
			p = p[:pc.limit]
		}
	}
	n, err := pc.conn.Read(p)
	if n > 0 {
		pc.gotByte = true
		if pc.limit >= 0 {
			pc.limit -= int64(n)
		}
	}
	return n, err
}

var errHeaderTooLong = errors.New("httpclient: response header over the limit")

func (t *Transport) maxHeaderBytes() int64 {
	if t.MaxResponseHeaderBytes > 0 {
		return t.MaxResponseHeaderBytes
	}
	return 10 << 20
}

// writeCounter is the bufio.Writer's: it counts what reached the socket.
type writeCounter struct{ pc *persistConn }

func (w writeCounter) Write(p []byte) (int, error) {
	n, err := w.pc.conn.Write(p)
	w.pc.nwritten += int64(n)
	return n, err
}

// close closes the connection and gives its slot up, once.
func (pc *persistConn) close() {
	pc.closeOnce.Do(func() {
		pc.conn.Close()
		pc.t.release(pc.key)
	})
}

// aLongTimeAgo is a deadline that has passed: it fails every wait.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip writes req and reads the response's header; the body is read
// by the caller. On an error the connection is closed.
func (pc *persistConn) roundTrip(ctx context.Context, req *http.Request) (*http.Response, error) {
	t := pc.t
	pc.gotByte, pc.nwritten = false, 0
	pc.canceled.Store(false)
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() {
			pc.canceled.Store(true)
			pc.conn.SetDeadline(aLongTimeAgo)
		})
	}
	fail := func(err error) (*http.Response, error) {
		stop()
		pc.close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}

	extra, askedGzip, closing := t.extraHeader(req)
	var werr error
	if extra == "" {
		werr = req.Write(pc.bw)
	} else {
		werr = req.Write(&headerAdder{w: pc.bw, extra: extra})
	}
	if werr == nil {
		werr = pc.bw.Flush()
	}
	// A server may answer before it reads the whole body, and close: a
	// response already there is still the answer, as net/http's.
	if werr != nil && (ctx.Err() != nil || pc.peek() != peekBytes) {
		if pc.nwritten > 0 {
			werr = fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", werr)
		}
		return fail(werr)
	}

	if d := t.ResponseHeaderTimeout; d > 0 && werr == nil {
		pc.conn.SetReadDeadline(time.Now().Add(d))
	}
	// The 1xx responses before the final one are skipped, as many as
	// fit: the header limit holds for all of them and the final one
	// together, as in net/http's Transport when no trace looks at them.
	pc.limit = t.maxHeaderBytes()
	var resp *http.Response
	var err error
	for {
		resp, err = http.ReadResponse(pc.br, req)
		if err != nil {
			break
		}
		code := resp.StatusCode
		if code < 100 || code >= 200 || code == http.StatusSwitchingProtocols {
			break
		}
	}
	overLimit := pc.limit == 0
	pc.limit = -1
	if err != nil {
		if werr != nil {
			return fail(werr)
		}
		// The errors of net/http's Transport, word for word.
		if ne, ok := err.(net.Error); ok && ne.Timeout() && t.ResponseHeaderTimeout > 0 && ctx.Err() == nil && !pc.canceled.Load() {
			err = &timeoutError{"net/http: timeout awaiting response headers"}
		} else {
			if overLimit {
				err = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", t.maxHeaderBytes())
			} else if err == io.ErrUnexpectedEOF && !pc.gotByte {
				err = io.EOF // the server closed without a word
			}
			err = fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err)
		}
		return fail(err)
	}
	if t.ResponseHeaderTimeout > 0 {
		pc.conn.SetReadDeadline(time.Time{})
		if pc.canceled.Load() {
			pc.conn.SetDeadline(aLongTimeAgo) // the reset must not undo it
		}
	}

	if resp.StatusCode == http.StatusSwitchingProtocols {
		stop()
		resp.Body = &upgraded{pc: pc}
		return resp, nil
	}
	keep := werr == nil && !resp.Close && !req.Close && !closing
	if resp.Body == http.NoBody {
		pc.done(stop, keep)
		return resp, nil
	}
	b := &body{pc: pc, rc: resp.Body, stop: stop, ctx: ctx, keep: keep}
	resp.Body = b
	if askedGzip && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: b}
	}
	return resp, nil
}

// extraHeader is what the Transport adds to req's header, as net/http's:
// Accept-Encoding: gzip when it asks for compression, Connection: close
// without keep-alives; req itself is left as it is.
func (t *Transport) extraHeader(req *http.Request) (extra string, gzip, closing bool) {
	gzip = !t.DisableCompression && req.Method != http.MethodHead &&
		req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == ""
	closing = t.DisableKeepAlives && !req.Close
	switch {
	case gzip && closing:
		extra = "Accept-Encoding: gzip\r\nConnection: close\r\n"
	case gzip:
		extra = "Accept-Encoding: gzip\r\n"
	case closing:
		extra = "Connection: close\r\n"
	}
	return extra, gzip, closing
}

// headerAdder is what Request.Write writes to when the Transport adds
// header lines: it passes everything to w and puts the lines in after
// the Host line, the request's second (no field value holds a line
// feed: check refuses them). Without a copy of the request and its
// header, which RoundTrip may not change. It is an io.ByteWriter,
// io.StringWriter and io.ReaderFrom so that Request.Write and the body's
// copy write straight into w, as into a *bufio.Writer.
type headerAdder struct {
	w     *bufio.Writer
	extra string
	lines int // line feeds passed, up to 2
}

func (h *headerAdder) Write(p []byte) (int, error) {
	if h.lines < 2 {
		for i, c := range p {
			if c == '\n' {
				if h.lines++; h.lines == 2 {
					n, _ := h.w.Write(p[:i+1])
					h.w.WriteString(h.extra)
					m, err := h.w.Write(p[i+1:])
					return n + m, err
				}
			}
		}
	}
	return h.w.Write(p)
}

func (h *headerAdder) WriteString(s string) (int, error) {
	if h.lines < 2 {
		return h.Write([]byte(s))
	}
	return h.w.WriteString(s)
}

func (h *headerAdder) WriteByte(c byte) error {
	if h.lines < 2 {
		_, err := h.Write([]byte{c})
		return err
	}
	return h.w.WriteByte(c)
}

func (h *headerAdder) ReadFrom(r io.Reader) (int64, error) {
	if h.lines < 2 {
		return io.Copy(struct{ io.Writer }{h}, r)
	}
	return h.w.ReadFrom(r)
}

// done ends a request on pc: back to the pool if keep and the context
// left the connection alone, closed otherwise.
func (pc *persistConn) done(stop func() bool, keep bool) {
	if !stop() || pc.canceled.Load() {
		keep = false
	}
	if keep {
		pc.t.putIdle(pc)
	} else {
		pc.close()
	}
}

// body is a response's body: its end puts the connection back.
type body struct {
	pc   *persistConn
	rc   io.ReadCloser // http.ReadResponse's
	stop func() bool
	ctx  context.Context
	keep bool

	mu     sync.Mutex
	over   bool // read to its end, failed or closed: pc is not ours
	closed bool
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errBodyClosed
	}
	over := b.over
	b.mu.Unlock()
	if over {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	if b.over || b.closed {
		b.mu.Unlock()
		if b.closed {
			return n, errBodyClosed
		}
		return n, err
	}
	b.over = true
	b.mu.Unlock()
	if err == io.EOF {
		b.pc.done(b.stop, b.keep)
		return n, io.EOF
	}
	b.pc.done(b.stop, false)
	if cerr := b.ctx.Err(); cerr != nil {
		return n, cerr
	}
	return n, err
}

// Close ends the body; a body not read to its end closes its connection
// (reading the rest would wait for a server that may send forever).
func (b *body) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	over := b.over
	b.over = true
	b.mu.Unlock()
	if !over {
		b.pc.done(b.stop, false)
	}
	return nil
}

// gzipBody decompresses a body the Transport asked gzip for; the reader
// is made at the first Read, so that a Close alone reads nothing.
type gzipBody struct {
	body *body
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(g.body)
		if err != nil {
			g.err = err
			return 0, err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err != nil {
		g.err = err
	}
	return n, err
}

func (g *gzipBody) Close() error { return g.body.Close() }

// upgraded is the Body of a 101 response: the connection itself, to read
// what the reader buffered and then the socket, and to write; it leaves
// the pool for good.
type upgraded struct {
	pc *persistConn
}

func (u *upgraded) Read(p []byte) (int, error)  { return u.pc.br.Read(p) }
func (u *upgraded) Write(p []byte) (int, error) { return u.pc.conn.Write(p) }
func (u *upgraded) Close() error {
	u.pc.close()
	return nil
}
