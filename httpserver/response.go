package httpserver

import (
	"bufio"
	"net"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// bufferBeforeChunking is how much of a body is held back before the
// header goes out: a handler that writes no more than this and returns
// gets a Content-Length, a longer body is chunked. net/http's size, so
// that the two choose alike.
const bufferBeforeChunking = 2048

// response is the http.ResponseWriter of a conn: one per conn, reset for
// each request (a ResponseWriter must not be used after ServeHTTP
// returns, as net/http says).
//
// The final status line and the handler's header go into the write
// buffer at WriteHeader, which gives net/http's snapshot semantics (a
// header changed afterwards is not sent) without a copy of the map. The
// headers whose fate is decided only when the header is completed
// (Content-Length, Transfer-Encoding, Connection; net/http's chunkWriter
// decides them from the first body bytes and whether the handler is done)
// are held back until then (commit).
type response struct {
	c             *conn
	req           *http.Request
	body          *body // nil: no request body
	handlerHeader http.Header

	status      int
	wroteHeader bool // the final status line is in the write buffer
	committed   bool // the header is complete; body bytes go out
	chunking    bool
	handlerDone bool
	// contentLength is the handler's Content-Length, or the body's length
	// when commit sets it; -1 while unknown.
	contentLength int64
	written       int64
	buf           []byte // body held back until commit
	wireMark      int64  // connWriter.n when the final status line was buffered

	closeAfterReply     bool
	requestBodyLimitHit bool
	wants10KeepAlive    bool
	wantsClose          bool
	isHEAD, is11        bool
	fullDuplex          bool
	canWriteContinue    bool
	ecr                 bool // Expect: 100-continue was honoured

	// The held-back headers, as the handler set them at WriteHeader.
	clValue    string
	te         string
	connValues []string
	hasConn    bool
	haveType   bool
	hasCE      bool
	hasDate    bool
	upgrade    bool     // a 101 switching protocols
	trailers   bool     // trailers were declared
	declared   []string // trailer names from the Trailer header

	numBuf [20]byte
}

var (
	_ http.ResponseWriter = (*response)(nil)
	_ http.Flusher        = (*response)(nil)
	_ http.Hijacker       = (*response)(nil)
)

func (w *response) reset(req *http.Request) {
	clear(w.handlerHeader)
	*w = response{
		c:             w.c,
		req:           req,
		handlerHeader: w.handlerHeader,
		contentLength: -1,
		buf:           w.buf[:0],
		declared:      w.declared[:0],
		isHEAD:        req.Method == "HEAD",
		is11:          req.ProtoAtLeast(1, 1),
		// Taken before the handler can change the request's header.
		wants10KeepAlive: req.ProtoMajor == 1 && req.ProtoMinor == 0 &&
			hasToken(req.Header["Connection"], "keep-alive"),
		wantsClose: req.Close || hasToken(req.Header["Connection"], "close"),
	}
}

func (w *response) releaseBuf() {
	if cap(w.buf) > bufferBeforeChunking {
		w.buf = nil
	}
}

// Header returns the header map that WriteHeader (or the first Write)
// sends.
func (w *response) Header() http.Header { return w.handlerHeader }

// WriteHeader sends an informational status (1xx other than 101) at once,
// with the header as it is now, any number of times; the first other
// status is the response's, and later calls are logged and ignored.
func (w *response) WriteHeader(code int) {
	c := w.c
	if c.hijacked {
		w.logCaller("http: response.WriteHeader on hijacked connection from %s (%s:%d)")
		return
	}
	if w.wroteHeader {
		w.logCaller("http: superfluous response.WriteHeader call from %s (%s:%d)")
		return
	}
	if code < 100 || code > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(code))
	}
	if code < 101 || code > 199 {
		// A 100 Continue or any final status: the body reader will not
		// send one any more.
		w.canWriteContinue = false
	}
	h := w.handlerHeader
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		bw := c.writer()
		writeStatusLine(bw, w.is11, code)
		c.writeHeaderLines(bw, h, exclBody)
		bw.WriteString("\r\n")
		bw.Flush()
		return
	}
	w.wroteHeader = true
	w.status = code
	if cl := first(h["Content-Length"]); cl != "" {
		if v, err := strconv.ParseInt(cl, 10, 64); err == nil && v >= 0 {
			w.contentLength = v
			w.clValue = cl
		} else {
			c.srv.logf("http: invalid Content-Length of %q", cl)
			delete(h, "Content-Length")
		}
	}
	w.te = first(h["Transfer-Encoding"])
	_, w.haveType = h["Content-Type"]
	w.hasCE = first(h["Content-Encoding"]) != ""
	_, w.hasDate = h["Date"]
	w.connValues, w.hasConn = h["Connection"]
	w.upgrade = code == http.StatusSwitchingProtocols && h.Get("Upgrade") != "" &&
		hasToken(h["Connection"], "Upgrade")
	for _, v := range h["Trailer"] {
		w.trailers = true
		w.declareTrailers(v)
	}
	excl := exclHeld
	if code == http.StatusNotModified {
		excl |= exclType
	}
	bw := c.writer()
	w.wireMark = c.cw.n
	writeStatusLine(bw, w.is11, code)
	if c.writeHeaderLines(bw, h, excl) {
		w.trailers = true
	}
}

// declareTrailers notes the trailer names of a Trailer header value.
func (w *response) declareTrailers(v string) {
	for f := range strings.SplitSeq(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k := http.CanonicalHeaderKey(f)
		if !validTrailer(k) {
			continue
		}
		w.declared = append(w.declared, k)
	}
}

func (w *response) logCaller(format string) {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	var f runtime.Frame
	for more := true; more; {
		f, more = frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/revoltgo/eventloop/httpserver.") && !strings.HasPrefix(f.Function, "net/http.") {
			break
		}
	}
	w.c.srv.logf(format, f.Function, path.Base(f.File), f.Line)
}

// Write writes body bytes: held back (up to bufferBeforeChunking) until
// the handler returns or more comes, then sent, chunked if no
// Content-Length was set.
func (w *response) Write(p []byte) (int, error) { return w.write(p, "", false) }

// WriteString is Write without a copy to a byte slice.
func (w *response) WriteString(s string) (int, error) { return w.write(nil, s, true) }

func (w *response) write(p []byte, s string, isString bool) (int, error) {
	n := len(p)
	if isString {
		n = len(s)
	}
	c := w.c
	if c.hijacked {
		if n > 0 {
			w.logCaller("http: response.Write on hijacked connection from %s (%s:%d)")
		}
		return 0, http.ErrHijacked
	}
	w.canWriteContinue = false
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if n == 0 {
		return 0, nil
	}
	if !bodyAllowedForStatus(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(n)
	if w.contentLength != -1 && w.written > w.contentLength {
		return 0, http.ErrContentLength
	}
	if !w.committed {
		if len(w.buf)+n <= bufferBeforeChunking {
			if w.buf == nil {
				w.buf = make([]byte, 0, bufferBeforeChunking)
			}
			if isString {
				w.buf = append(w.buf, s...)
			} else {
				w.buf = append(w.buf, p...)
			}
			return n, nil
		}
		var sniff [sniffLen]byte
		k := copy(sniff[:], w.buf)
		if isString {
			k += copy(sniff[k:], s)
		} else {
			k += copy(sniff[k:], p)
		}
		w.commit(sniff[:k])
		if err := w.writeBody(w.buf, ""); err != nil {
			return 0, err
		}
		w.buf = w.buf[:0]
	}
	var err error
	if isString {
		err = w.writeBody(nil, s)
	} else {
		err = w.writeBody(p, "")
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// sniffLen is what http.DetectContentType looks at.
const sniffLen = 512

// writeBody writes body bytes after the header, as a chunk when chunking;
// a HEAD response eats them.
func (w *response) writeBody(p []byte, s string) error {
	n := len(p) + len(s)
	if w.isHEAD || n == 0 {
		return nil
	}
	bw := w.c.bw
	if w.chunking {
		bw.Write(strconv.AppendInt(w.numBuf[:0], int64(n), 16))
		bw.WriteString("\r\n")
	}
	if p != nil {
		bw.Write(p)
	} else {
		bw.WriteString(s)
	}
	if w.chunking {
		bw.WriteString("\r\n")
	}
	if w.c.werr != nil {
		return w.c.werr
	}
	return nil
}

// Flush sends the header and what the body holds so far.
func (w *response) Flush() { w.FlushError() }

// FlushError is Flush that returns the write's error (for
// http.ResponseController).
func (w *response) FlushError() error {
	if w.c.hijacked {
		return http.ErrHijacked
	}
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.commitBuffered()
	return w.c.bw.Flush()
}

// commitBuffered completes the header if it is not, with what the body
// holds, and writes that.
func (w *response) commitBuffered() {
	if w.committed {
		return
	}
	w.commit(w.buf)
	w.writeBody(w.buf, "")
	w.buf = w.buf[:0]
}

// finish completes the response once the handler has returned: the
// header if it is still held (with a Content-Length), the last chunk and
// the trailers, and sends it.
func (w *response) finish() {
	w.handlerDone = true
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.commitBuffered()
	bw := w.c.bw
	if w.chunking {
		bw.WriteString("0\r\n")
		if t := w.finalTrailers(); t != nil {
			w.c.writeHeaderLines(bw, t, 0)
		}
		bw.WriteString("\r\n")
	}
	bw.Flush()
	// What the handler left of the body is read, up to a limit: on a
	// connection kept it must go before the next request, and on one that
	// closes, a close with input unread could reset the connection under
	// the response. net/http's server reads it alike (closing the body
	// reads it), and so waits, as this does, for a body that its client
	// holds back for a 100 Continue never sent. Not read: a body that
	// failed, one given up as too large, and one of known length from a
	// client that said it closes (net/http reads none of them). The last
	// two still have their rest on the wire, which would reset the
	// connection under the response: the close half-closes and reads on
	// for a while first (conn.lingerClose), as net/http's does after a
	// body given up as too large (it closes at once after the other, and
	// its client may see a reset instead of the response).
	if b := w.body; b != nil && !b.sawEOF && !w.requestBodyLimitHit {
		switch {
		case b.failed:
			w.closeAfterReply = true
		case w.closeAfterReply && w.req.Close && w.req.ContentLength >= 0:
			w.c.closeWrite = true
		case w.req.ContentLength-b.n > maxPostHandlerReadBytes, !b.drain():
			w.closeAfterReply = true
			w.c.closeWrite = true
		}
	}
}

// finalTrailers is the trailer values the handler set: the declared names
// and those with http.TrailerPrefix.
func (w *response) finalTrailers() http.Header {
	var t http.Header
	for k, vv := range w.handlerHeader {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			if t == nil {
				t = make(http.Header)
			}
			t[name] = vv
		}
	}
	for _, k := range w.declared {
		for _, v := range w.handlerHeader[k] {
			if t == nil {
				t = make(http.Header)
			}
			t.Add(k, v)
		}
	}
	return t
}

// shouldReuseConnection is net/http's: the response said it would close,
// it was shorter than its Content-Length, or a write failed.
func (w *response) shouldReuseConnection() bool {
	if w.closeAfterReply {
		return false
	}
	if !w.isHEAD && w.contentLength != -1 && bodyAllowedForStatus(w.status) && w.contentLength != w.written {
		return false
	}
	return w.c.werr == nil
}

// commit completes the header in the write buffer: the decisions of
// net/http's chunkWriter.writeHeader, in its order. p is the body's
// first bytes (the whole body when the handler is done), which a missing
// Content-Type is sniffed from.
func (w *response) commit(p []byte) {
	w.committed = true
	c := w.c
	keepAlives := c.srv.keepAlives()
	code := w.status
	bodyAllowed := bodyAllowedForStatus(code)
	hasTE := w.te != ""

	// A handler done with a small body gets its length, even 0, which
	// keeps HTTP/1.0 keep-alive working. Not for HEAD with no body (the
	// handler may have skipped it), nor with trailers or a
	// Transfer-Encoding of the handler's.
	var autoCL []byte
	if w.handlerDone && !w.trailers && !hasTE && bodyAllowed && w.clValue == "" && (!w.isHEAD || len(p) > 0) {
		w.contentLength = int64(len(p))
		autoCL = strconv.AppendInt(w.numBuf[:0], int64(len(p)), 10)
	}
	connHeader := first(w.connValues)
	if w.wants10KeepAlive && keepAlives && w.clValue != "" && connHeader == "keep-alive" {
		w.closeAfterReply = false
	}
	hasCL := w.contentLength != -1
	var setConnection string
	if w.wants10KeepAlive && (w.isHEAD || hasCL || !bodyAllowed) {
		if !w.hasConn {
			setConnection = "keep-alive"
		}
	} else if !w.is11 || w.wantsClose {
		w.closeAfterReply = true
	}
	if connHeader == "close" || !keepAlives {
		w.closeAfterReply = true
	}
	// Expect: 100-continue never answered: the client may or may not send
	// the body, so the next bytes cannot be trusted to be a request.
	if w.ecr && !w.body.sawEOF {
		w.closeAfterReply = true
	}
	// A client may send its whole request before it reads the response:
	// consume what is left of the body now (not in full duplex mode), or
	// close if it is large.
	keepConnHeader := w.hasConn
	if b := w.body; code == http.StatusRequestEntityTooLarge && b != nil && !b.failed && !w.fullDuplex {
		// The handler refused the body. http.MaxBytesReader tells
		// net/http's server so through an unexported method, which
		// closes the connection and says so, whatever the protocol and
		// even when the limit's extra byte was the body's last; this
		// server cannot tell it from another 413, and closes after each.
		// The rest, if any, is not read on.
		w.tooBig()
		if b.sawEOF {
			w.c.closeWrite = false // nothing left to wait for
		}
	}
	if w.req.ContentLength != 0 && !w.closeAfterReply && !w.fullDuplex && w.body != nil {
		b := w.body
		switch {
		case b.failed:
			w.closeAfterReply = true
		case b.sawEOF:
		case w.req.ContentLength > 0 && w.req.ContentLength-b.n >= maxPostHandlerReadBytes:
			w.tooBig()
		case !b.drain():
			if b.failed {
				w.closeAfterReply = true
			} else {
				w.tooBig()
			}
		}
		if b.sawEOF && !w.ecr {
			// net/http's server closes the body it consumed here, so that
			// a read after the header fails with ErrBodyReadAfterClose
			// rather than seeing an end; it leaves a body behind 100
			// Continue open.
			b.closed = true
		}
	}
	if w.requestBodyLimitHit {
		keepConnHeader = false
		setConnection = "close"
	}

	var contentType string
	if bodyAllowed {
		if !w.hasCE && !w.haveType && !hasTE && len(p) > 0 {
			contentType = c.ls.sniff(p)
		}
	}
	keepCL := w.clValue != "" && bodyAllowed
	if hasCL && hasTE && w.te != "identity" {
		c.srv.logf("http: WriteHeader called with both Transfer-Encoding of %q and a Content-Length of %d", w.te, w.contentLength)
		keepCL, hasCL, w.contentLength = false, false, -1
	}
	keepTE := false
	var setTE string
	switch {
	case w.isHEAD || !bodyAllowed || code == http.StatusNoContent:
	case hasCL:
	case w.is11:
		if hasTE && w.te == "identity" {
			w.closeAfterReply = true
		} else {
			w.chunking = true
			setTE = "chunked"
			keepTE = hasTE && w.te != "chunked"
		}
	default:
		// HTTP/1.0 has no chunking: the body ends with the connection.
		w.closeAfterReply = true
	}
	if w.chunking {
		keepCL, autoCL = false, nil
	}
	if w.closeAfterReply && (!keepAlives || !hasToken(w.connValues, "close")) && !w.upgrade {
		keepConnHeader = false
		if w.is11 {
			setConnection = "close"
		}
	}

	bw := c.bw
	if keepConnHeader {
		for _, v := range w.connValues {
			writeField(bw, "Connection", v)
		}
	}
	if keepCL {
		writeField(bw, "Content-Length", w.clValue)
	}
	if keepTE {
		for _, v := range w.handlerHeader["Transfer-Encoding"] {
			writeField(bw, "Transfer-Encoding", v)
		}
	}
	if !w.hasDate {
		bw.WriteString("Date: ")
		bw.Write(c.ls.httpDate())
		bw.WriteString("\r\n")
	}
	if autoCL != nil {
		bw.WriteString("Content-Length: ")
		bw.Write(autoCL)
		bw.WriteString("\r\n")
	}
	if contentType != "" {
		bw.WriteString("Content-Type: ")
		bw.WriteString(contentType)
		bw.WriteString("\r\n")
	}
	if setConnection != "" {
		bw.WriteString("Connection: ")
		bw.WriteString(setConnection)
		bw.WriteString("\r\n")
	}
	if setTE != "" {
		bw.WriteString("Transfer-Encoding: chunked\r\n")
	}
	bw.WriteString("\r\n")
}

// tooBig gives up on a request body too large to consume: the
// connection closes after the response, after a half-close.
func (w *response) tooBig() {
	w.requestBodyLimitHit = true
	w.closeAfterReply = true
	w.c.closeWrite = true
}

// writeContinue sends 100 Continue, on the body's first Read.
func (w *response) writeContinue() {
	bw := w.c.writer()
	bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
	bw.Flush()
}

// Hijack hands the connection over: the *socket.Conn (still on the loop:
// a Read from a fiber suspends it) and the read and write buffers, the
// read buffer holding what the client sent beyond the request. A header
// already written is sent first. The server no longer touches the
// connection: Shutdown and Close leave it alone.
func (w *response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c := w.c
	if c.hijacked {
		return nil, nil, http.ErrHijacked
	}
	if w.wroteHeader {
		w.commitBuffered()
		if err := c.bw.Flush(); err != nil {
			return nil, nil, err
		}
	}
	c.stopWatch()
	c.hijacked = true
	c.rwc.SetDeadline(time.Time{})
	c.rd, c.wd = time.Time{}, time.Time{}
	bw := c.writer()
	bw.Flush()
	bw.Reset(c.rwc)
	br := c.br
	c.br, c.bw = nil, nil
	c.ls.remove(c)
	c.setState(http.StateHijacked)
	return c.rwc, bufio.NewReadWriter(br, bw), nil
}

// SetReadDeadline sets the connection's read deadline, for
// http.ResponseController: it bounds the handler's reads of the body.
func (w *response) SetReadDeadline(t time.Time) error {
	c := w.c
	if c.hijacked {
		return http.ErrHijacked
	}
	c.rd = t
	return c.rwc.SetReadDeadline(t)
}

// SetWriteDeadline sets the connection's write deadline, for
// http.ResponseController.
func (w *response) SetWriteDeadline(t time.Time) error {
	c := w.c
	if c.hijacked {
		return http.ErrHijacked
	}
	c.wd = t
	return c.rwc.SetWriteDeadline(t)
}

// EnableFullDuplex lets the handler read the request body after it has
// started the response (otherwise what is left of it is consumed, up to a
// limit, when the header goes), for http.ResponseController.
func (w *response) EnableFullDuplex() error {
	w.fullDuplex = true
	return nil
}

// bodyAllowedForStatus is net/http's: no body with 1xx, 204 and 304.
func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == 204, status == 304:
		return false
	}
	return true
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
