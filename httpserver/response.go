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
	if len(w.handlerHeader) > 0 {
		clear(w.handlerHeader)
	}
	var conn []string
	if len(req.Header) > 0 {
		conn = req.Header["Connection"]
	}
	*w = response{
		c:             w.c,
		req:           req,
		handlerHeader: w.handlerHeader,
		contentLength: -1,
		declared:      w.declared[:0],
		isHEAD:        req.Method == "HEAD",
		is11:          req.ProtoAtLeast(1, 1),
		// Taken before the handler can change the request's header.
		wants10KeepAlive: req.ProtoMajor == 1 && req.ProtoMinor == 0 && hasToken(conn, "keep-alive"),
		wantsClose:       req.Close || hasToken(conn, "close"),
	}
}

// releaseBuf gives the held-back body's buffer back to the loop once the
// response is sent: an idle conn holds none.
func (w *response) releaseBuf() {
	if cap(w.buf) == bufferBeforeChunking {
		w.c.ls.putBody(w.buf)
	}
	w.buf = nil
}

// Header returns the header map that WriteHeader (or the first Write)
// sends. The conn makes it at the first call and keeps it, cleared, for
// its next requests: a conn whose handlers never ask has none.
func (w *response) Header() http.Header {
	if w.handlerHeader == nil {
		w.handlerHeader = make(http.Header)
	}
	return w.handlerHeader
}

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
	if code == http.StatusSwitchingProtocols && w.canWriteContinue {
		// The body's read would send its 100 Continue behind the 101's
		// header, into the protocol switched to: it goes now, ahead of
		// it, as net/http's goes ahead of the 101 it holds back.
		w.writeContinue()
		w.canWriteContinue = false
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
	bw := c.writer()
	w.wireMark = c.cw.n
	if len(h) == 0 {
		// Nothing to look up nor write: seven map lookups fewer.
		writeStatusLine(bw, w.is11, code)
		return
	}
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
// http.ResponseController. (Apart from SetReadDeadline for the reason of
// conn.setWriteDeadline.)
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
