package httpserver

import (
	"net/http"
	"strconv"
	"strings"
)

// The body's way out, once WriteHeader has the status line and the
// handler's fields in the write buffer: held back until the header can be
// completed (commit), then written, as chunks or not; and the response's
// end once the handler returns.

// bufferBeforeChunking is how much of a body is held back before the
// header goes out: a handler that writes no more than this and returns
// gets a Content-Length, a longer body is chunked. net/http's size, so
// that the two choose alike.
const bufferBeforeChunking = 2048

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
				w.buf = w.c.ls.getBody()
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
	if !w.holdForBatch() {
		bw.Flush()
	}
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
