package httpserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	_ "unsafe" // go:linkname
)

// Reading a request: http.ReadRequest on the connection's read buffer,
// then the checks net/http's server adds (its readRequest), with the same
// answers for what fails.

var errTooLarge = errors.New("http: request too large")

// statusError is answered with its status and text, as net/http's.
type statusError struct {
	code int
	text string
}

func (e statusError) Error() string { return http.StatusText(e.code) + ": " + e.text }

func badRequest(text string) error { return statusError{http.StatusBadRequest, text} }

// readRequest reads the next request, with rs's context.
func (c *conn) readRequest(rs *reqState) (*http.Request, error) {
	srv := c.srv
	var t0 time.Time // the request's start, whence ReadTimeout counts
	if srv.ReadTimeout > 0 {
		t0 = time.Now()
	}
	c.cr.remain = srv.initialReadLimit()
	if c.lastMethod == "POST" {
		// RFC 7230 section 3 tolerance for old buggy clients, as net/http.
		peek, _ := c.br.Peek(4)
		c.br.Discard(numLeadingCRorLF(peek))
	}
	// The request goes into rs, through WithContext (the only way to give
	// it its context) and a copy, so that it is not an object of its own.
	req := &rs.req
	var fast http.Request
	if ok, hadHost := parseFast(c.br, &fast, &rs.url, rs.strs[:]); ok {
		*req = *fast.WithContext(&rs.ctx)
		// parseFast checked the fields and kept Host out of the map; it
		// takes HTTP/1.x only, and neither CONNECT nor PRI.
		if req.ProtoMinor >= 1 && !hadHost {
			return nil, badRequest("missing required Host header")
		}
		if hadHost && !validHost(req.Host) {
			return nil, badRequest("malformed Host header")
		}
	} else {
		c.startCapture()
		r, err := readRequest(c.br)
		c.capturing = false
		if err != nil {
			if c.cr.hitLimit() {
				return nil, errTooLarge
			}
			return nil, err
		}
		*req = *r.WithContext(&rs.ctx)
		if err := c.checkRequest(req); err != nil {
			return nil, err
		}
	}
	c.lastMethod = req.Method
	c.cr.remain = math.MaxInt64
	req.RemoteAddr = c.remoteAddr
	req.TLS = c.tlsState

	var whole time.Time
	if d := srv.ReadTimeout; d > 0 {
		whole = t0.Add(d)
	}
	c.setReadDeadline(whole)
	if d := srv.WriteTimeout; d > 0 {
		c.setWriteDeadline(time.Now().Add(d))
	}
	return req, nil
}

// checkRequest makes net/http's server's checks of a request that
// http.ReadRequest took (parseFast's requests pass them by their shape),
// and drops its Host field, which the server keeps in req.Host alone.
func (c *conn) checkRequest(req *http.Request) error {
	if !http1ServerSupportsRequest(req) {
		return statusError{http.StatusHTTPVersionNotSupported, "unsupported protocol version"}
	}
	hosts, haveHost := req.Header["Host"]
	isH2Upgrade := req.Method == "PRI" && len(req.Header) == 0 && req.URL.Path == "*" && req.Proto == "HTTP/2.0"
	if req.ProtoAtLeast(1, 1) && (!haveHost || len(hosts) == 0) && !isH2Upgrade && req.Method != "CONNECT" {
		return badRequest("missing required Host header")
	}
	if len(hosts) == 1 && !validHost(hosts[0]) {
		return badRequest("malformed Host header")
	}
	for k, vv := range req.Header {
		if !validFieldName(k) {
			return badRequest("invalid header name")
		}
		for _, v := range vv {
			if !validFieldValue(v) {
				return badRequest("invalid header value")
			}
		}
	}
	if len(req.TransferEncoding) > 0 && c.capturedContentLength() {
		// http.ReadRequest lets Transfer-Encoding override Content-Length
		// (RFC 9112 6.3); RFC 9112 also says such a message "ought to be
		// handled as an error", being a way to smuggle requests past a
		// proxy that frames it by the other header. Refused here.
		return badRequest("both Transfer-Encoding and Content-Length")
	}
	c.releaseCapture()
	delete(req.Header, "Host")
	return nil
}

// readRequest is http.ReadRequest before it drops the Host field: what
// net/http's server parses with, so that the checks below see what its
// see (a request with no Host field, or an empty one). Its signature is
// kept by net/http for linkname (go.dev/issue/67401).
//
//go:linkname readRequest net/http.readRequest
func readRequest(b *bufio.Reader) (*http.Request, error)

// http1ServerSupportsRequest is net/http's: HTTP/1.x, and the HTTP/2
// preface for handlers that upgrade by themselves.
func http1ServerSupportsRequest(req *http.Request) bool {
	if req.ProtoMajor == 1 {
		return true
	}
	return req.ProtoMajor == 2 && req.ProtoMinor == 0 && req.Method == "PRI" && req.RequestURI == "*"
}

func numLeadingCRorLF(v []byte) (n int) {
	for _, b := range v {
		if b == '\r' || b == '\n' {
			n++
			continue
		}
		break
	}
	return
}

// startCapture records the request's bytes from here to the end of
// http.ReadRequest: those already in the read buffer now, and those the
// buffer reads meanwhile.
func (c *conn) startCapture() {
	c.capture = c.capture[:0]
	if n := c.br.Buffered(); n > 0 {
		b, _ := c.br.Peek(n)
		c.capture = append(c.capture, b...)
	}
	c.capturing = true
}

// releaseCapture drops a capture buffer that a large header grew, so
// that a connection keeps no more than a small one.
func (c *conn) releaseCapture() {
	if cap(c.capture) > 8<<10 {
		c.capture = nil
	}
}

// capturedContentLength reports whether the captured header has a
// Content-Length field.
func (c *conn) capturedContentLength() bool {
	head := c.capture
	if i := bytes.Index(head, []byte("\n\r\n")); i >= 0 {
		head = head[:i+1]
	} else if i := bytes.Index(head, []byte("\n\n")); i >= 0 {
		head = head[:i+1]
	}
	const field = "content-length:"
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break
		}
		head = head[i+1:]
		if len(head) >= len(field) && strings.EqualFold(string(head[:len(field)]), field) {
			c.releaseCapture()
			return true
		}
	}
	c.releaseCapture()
	return false
}

// replyError answers a request that could not be read, as net/http's
// server does, and the connection then closes. A read that failed (the
// client went, a deadline passed) gets no answer.
func (c *conn) replyError(err error) {
	const errorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	var msg string
	var se statusError
	switch {
	case err == errTooLarge:
		// The client may still be writing its header: half-close and let
		// it finish, or it may never see the answer.
		const publicErr = "431 Request Header Fields Too Large"
		msg = "HTTP/1.1 " + publicErr + errorHeaders + publicErr
		c.closeWrite = true
	case isUnsupportedTEError(err):
		// RFC 9112 6.1: a transfer coding the server does not understand
		// gets 501. The value is not echoed, as net/http does not.
		msg = "HTTP/1.1 501 Not Implemented" + errorHeaders + "Unsupported transfer encoding"
	case isCommonNetReadError(err):
		return
	case errors.As(err, &se):
		text := strconv.Itoa(se.code) + " " + http.StatusText(se.code) + ": " + se.text
		msg = "HTTP/1.1 " + text + errorHeaders + text
	default:
		const publicErr = "400 Bad Request"
		msg = "HTTP/1.1 " + publicErr + errorHeaders + publicErr
	}
	c.rwc.Write([]byte(msg))
}

// isUnsupportedTEError recognises http.ReadRequest's error for a
// Transfer-Encoding other than one "chunked": its type is not exported,
// so by its text (pinned by a test against net/http's server).
func isUnsupportedTEError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unsupported transfer encoding: ") || strings.HasPrefix(s, "too many transfer encodings: ")
}

// isCommonNetReadError is net/http's: the client went away or a read
// deadline passed.
func isCommonNetReadError(err error) bool {
	if err == io.EOF {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "read"
}

// expectsContinue is net/http's: Expect's first value holds the token
// 100-continue.
func expectsContinue(r *http.Request) bool {
	vs := r.Header["Expect"]
	return len(vs) > 0 && hasToken(vs[:1], "100-continue")
}
