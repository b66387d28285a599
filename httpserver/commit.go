package httpserver

import (
	"net/http"
	"strconv"
)

// Completing a response's header: the decisions of net/http's
// chunkWriter.writeHeader, in its order, each of which may depend on the
// ones before it (whether the connection closes feeds the framing, and
// the framing feeds whether it closes).

// heldFields is what commit writes in place of the fields WriteHeader
// held back: which of the handler's go out, and the server's own.
type heldFields struct {
	keepConn    bool   // the handler's Connection values
	keepCL      bool   // the handler's Content-Length
	keepTE      bool   // the handler's Transfer-Encoding values, before chunked
	autoCL      []byte // a Content-Length of the server's
	contentType string // sniffed
	connection  string // a Connection value of the server's
}

// commit completes the header in the write buffer. p is the body's first
// bytes (the whole body when the handler is done), which a missing
// Content-Type is sniffed from.
func (w *response) commit(p []byte) {
	w.committed = true
	keepAlives := w.c.srv.keepAlives()
	var f heldFields
	f.autoCL = w.autoContentLength(p)
	f.keepConn, f.connection = w.keepAlive(keepAlives)
	w.consumeRequestBody()
	if w.requestBodyLimitHit {
		f.keepConn, f.connection = false, "close"
	}
	f.contentType = w.sniffedType(p)
	w.frame(&f)
	w.announceClose(&f, keepAlives)
	w.writeHeld(&f)
}

// autoContentLength is the Content-Length of a handler done with a small
// body, even 0, which keeps HTTP/1.0 keep-alive working; nil otherwise.
// Not for HEAD with no body (the handler may have skipped it), nor with
// trailers or a Transfer-Encoding of the handler's.
func (w *response) autoContentLength(p []byte) []byte {
	if !w.handlerDone || w.trailers || w.te != "" || !bodyAllowedForStatus(w.status) || w.clValue != "" || (w.isHEAD && len(p) == 0) {
		return nil
	}
	w.contentLength = int64(len(p))
	return strconv.AppendInt(w.numBuf[:0], int64(len(p)), 10)
}

// keepAlive decides from the protocol and the Connection fields whether
// the connection closes after the response, before the request body and
// the framing have their say; it returns whether the handler's Connection
// values go out, and the server's own (keep-alive, which an HTTP/1.0
// client needs to be told).
func (w *response) keepAlive(keepAlives bool) (keepConn bool, connection string) {
	// net/http first turns closeAfterReply back off for an HTTP/1.0
	// keep-alive response with a Content-Length, undoing a MaxBytesReader
	// stop; nothing has set it here yet (that stop shows in the 413 alone).
	connHeader := first(w.connValues)
	if w.wants10KeepAlive && (w.isHEAD || w.contentLength != -1 || !bodyAllowedForStatus(w.status)) {
		if !w.hasConn {
			connection = "keep-alive"
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
	return w.hasConn, connection
}

// consumeRequestBody reads what is left of the request body before the
// header goes (not in full duplex mode), or gives up on it if it is
// large: a client may send its whole request before it reads the
// response.
func (w *response) consumeRequestBody() {
	b := w.body
	if b == nil || w.fullDuplex {
		return
	}
	if w.status == http.StatusRequestEntityTooLarge && !b.failed {
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
	if w.req.ContentLength == 0 || w.closeAfterReply {
		return
	}
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
		// net/http's server closes the body it consumed here, so that a
		// read after the header fails with ErrBodyReadAfterClose rather
		// than seeing an end; it leaves a body behind 100 Continue open.
		b.closed = true
	}
}

// tooBig gives up on a request body too large to consume: the
// connection closes after the response, after a half-close.
func (w *response) tooBig() {
	w.requestBodyLimitHit = true
	w.closeAfterReply = true
	w.c.closeWrite = true
}

// sniffedType is the Content-Type of a body whose handler set none; not
// sniffed from an encoded body, whose bytes are not the content's.
func (w *response) sniffedType(p []byte) string {
	if !bodyAllowedForStatus(w.status) || w.hasCE || w.haveType || w.te != "" || len(p) == 0 {
		return ""
	}
	return w.c.ls.sniffs.contentType(p)
}

// frame decides how the body ends: at its Content-Length, with the last
// chunk (HTTP/1.1), or with the connection (HTTP/1.0, which has no
// chunking, or the handler's Transfer-Encoding: identity). A HEAD
// response and the statuses without a body need none.
func (w *response) frame(f *heldFields) {
	bodyAllowed := bodyAllowedForStatus(w.status)
	hasCL, hasTE := w.contentLength != -1, w.te != ""
	f.keepCL = w.clValue != "" && bodyAllowed
	if hasCL && hasTE && w.te != "identity" {
		w.c.srv.logf("http: WriteHeader called with both Transfer-Encoding of %q and a Content-Length of %d", w.te, w.contentLength)
		f.keepCL, hasCL, w.contentLength = false, false, -1
	}
	switch {
	case w.isHEAD || !bodyAllowed || w.status == http.StatusNoContent:
	case hasCL:
	case w.is11:
		if hasTE && w.te == "identity" {
			w.closeAfterReply = true
		} else {
			w.chunking = true
			f.keepTE = hasTE && w.te != "chunked"
		}
	default:
		w.closeAfterReply = true
	}
	if w.chunking {
		f.keepCL, f.autoCL = false, nil
	}
}

// announceClose makes a connection that closes say so (HTTP/1.1) instead
// of the handler's Connection values, unless they say it already while
// keep-alives are on, or they are a 101's, which must go as they are.
func (w *response) announceClose(f *heldFields, keepAlives bool) {
	if !w.closeAfterReply || w.upgrade || keepAlives && hasToken(w.connValues, "close") {
		return
	}
	f.keepConn = false
	if w.is11 {
		f.connection = "close"
	}
}

// writeHeld writes the fields commit decided, then the Date a handler
// did not set, and ends the header.
func (w *response) writeHeld(f *heldFields) {
	bw := w.c.bw
	if f.keepConn {
		for _, v := range w.connValues {
			writeField(bw, "Connection", v)
		}
	}
	if f.keepCL {
		writeField(bw, "Content-Length", w.clValue)
	}
	if f.keepTE {
		for _, v := range w.handlerHeader["Transfer-Encoding"] {
			writeField(bw, "Transfer-Encoding", v)
		}
	}
	// The server's own values are written out, not through writeField:
	// they need no cleaning. They go into the write buffer's free room
	// and then in one Write: some 400 instructions a request fewer (of 6 700)
	// than a WriteString for each piece (callgrind).
	date := w.c.ls.dates.now()
	need := len("Date: \r\nContent-Length: \r\nContent-Type: \r\nConnection: \r\nTransfer-Encoding: chunked\r\n\r\n") +
		len(date) + len(f.autoCL) + len(f.contentType) + len(f.connection)
	if bw.Available() < need {
		bw.Flush() // the buffer is full enough to go
	}
	b := bw.AvailableBuffer()
	if cap(b) < need {
		b = make([]byte, 0, need) // a write error left the buffer full
	}
	if !w.hasDate {
		b = append(append(append(b, "Date: "...), date...), "\r\n"...)
	}
	if f.autoCL != nil {
		b = append(append(append(b, "Content-Length: "...), f.autoCL...), "\r\n"...)
	}
	if f.contentType != "" {
		b = append(append(append(b, "Content-Type: "...), f.contentType...), "\r\n"...)
	}
	if f.connection != "" {
		b = append(append(append(b, "Connection: "...), f.connection...), "\r\n"...)
	}
	if w.chunking {
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	bw.Write(append(b, "\r\n"...))
}
