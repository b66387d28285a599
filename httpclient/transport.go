package httpclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// DefaultMaxIdleConnsPerHost is the pool's bound per host when
// Transport.MaxIdleConnsPerHost is zero, as net/http's.
const DefaultMaxIdleConnsPerHost = 2

// Transport is an http.RoundTripper on the sockets of Loop. Its fields
// mean what net/http.Transport's of the same name mean; set them before
// the first request. A Transport is safe for use from any number of
// fibers and goroutines, and should be reused: it holds the pool.
type Transport struct {
	// Loop is the loop whose sockets carry the requests. Required.
	Loop *core.Loop

	// TLSClientConfig configures https connections; a nil one is the
	// zero tls.Config. ServerName is the URL's host unless set, and
	// NextProtos http/1.1 unless set.
	TLSClientConfig *tls.Config
	// TLSHandshakeTimeout bounds a TLS handshake; zero means no bound
	// but the request's context.
	TLSHandshakeTimeout time.Duration

	// DisableKeepAlives makes every request close its connection.
	DisableKeepAlives bool
	// DisableCompression leaves Accept-Encoding to the caller.
	DisableCompression bool

	// MaxIdleConns bounds the idle connections of all hosts; zero means
	// no bound.
	MaxIdleConns int
	// MaxIdleConnsPerHost bounds the idle connections per host; zero
	// means DefaultMaxIdleConnsPerHost.
	MaxIdleConnsPerHost int
	// MaxConnsPerHost bounds the connections per host, dialing, active
	// and idle; a request over it waits for one. Zero means no bound.
	MaxConnsPerHost int
	// IdleConnTimeout closes a connection idle for that long; zero means
	// no timeout.
	IdleConnTimeout time.Duration

	// ResponseHeaderTimeout bounds the wait for the response's header
	// once the request is written; zero means no bound.
	ResponseHeaderTimeout time.Duration
	// MaxResponseHeaderBytes bounds the response header; zero means
	// 10 MiB, as net/http's.
	MaxResponseHeaderBytes int64

	mu      sync.Mutex
	idle    map[connKey][]*persistConn // per key, oldest first
	nidle   int
	conns   map[connKey]int // per key: dialing, active and idle
	waiting map[connKey][]*waiter
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip sends req and reads the response's header, as net/http's
// Transport; see the package doc for where it waits.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		closeBody(req)
		return nil, err
	}
	ctx := req.Context()
	key := keyOf(req.URL)
	// As in net/http's Transport, a request is sent again for as long as
	// it fails on a reused connection: each of those leaves the pool, so
	// the tries end at the latest on a new connection.
	for {
		pc, err := t.getConn(ctx, req, key)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		resp, err := pc.roundTrip(ctx, req)
		if err == nil {
			return resp, nil
		}
		if !pc.reused || ctx.Err() != nil || !retryable(req, pc, err) {
			return nil, err
		}
		// A reused connection that the server closed meanwhile: again
		// on another, with the body from its start.
		if req.Body != nil && req.Body != http.NoBody {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			r := *req
			r.Body = body
			req = &r
		}
	}
}

// CloseIdleConnections closes the connections of the pool; those in use
// are left alone.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	var idle []*persistConn
	for key, list := range t.idle {
		idle = append(idle, list...)
		delete(t.idle, key)
	}
	t.nidle = 0
	for _, pc := range idle {
		pc.idleGen++
	}
	t.mu.Unlock()
	for _, pc := range idle {
		pc.close()
	}
}

// check refuses what net/http's Transport refuses, with its messages.
func (t *Transport) check(req *http.Request) error {
	if t.Loop == nil {
		return errors.New("httpclient: Transport.Loop is nil")
	}
	if req.URL == nil {
		return errors.New("http: nil Request.URL")
	}
	if req.Header == nil {
		return errors.New("http: nil Request.Header")
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("unsupported protocol scheme %q", s)
	}
	if req.URL.Host == "" {
		return errors.New("http: no Host in request URL")
	}
	if req.Method != "" && !validToken(req.Method) {
		return fmt.Errorf("net/http: invalid method %q", req.Method)
	}
	for name, values := range req.Header {
		if !validToken(name) {
			return fmt.Errorf("net/http: invalid header field name %q", name)
		}
		for _, v := range values {
			if !validValue(v) {
				// Don't include the value in the error, as net/http
				// does not: it may be sensitive.
				return fmt.Errorf("net/http: invalid header field value for %q", name)
			}
		}
	}
	return nil
}

// connKey is the pool's key: the scheme, and the address to dial.
type connKey struct{ scheme, addr string }

// keyOf is u's key; the URL's host is the address when it has a port.
func keyOf(u *url.URL) connKey {
	port := u.Port()
	if port != "" && !strings.Contains(u.Host, "%") {
		return connKey{u.Scheme, u.Host}
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return connKey{u.Scheme, net.JoinHostPort(u.Hostname(), port)}
}

// retryable says whether req may be sent again after err on a reused
// connection: nothing of a response came, its body can be had again,
// and either nothing of it was written or its method is idempotent.
func retryable(req *http.Request, pc *persistConn, err error) bool {
	if pc.gotByte {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	if pc.nwritten == 0 {
		return true
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, ok := req.Header["Idempotency-Key"]
	if !ok {
		_, ok = req.Header["X-Idempotency-Key"]
	}
	return ok
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// validToken reports whether s is an RFC 9110 token.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || c == 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validValue reports whether a field value holds no control byte but
// horizontal tab.
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// errBodyClosed is a read of a body after its Close, as net/http's.
var errBodyClosed = http.ErrBodyReadAfterClose

// timeoutError is net/http's kind of timeout.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
func (e *timeoutError) Is(err error) bool {
	return err == context.DeadlineExceeded
}

var _ net.Error = (*timeoutError)(nil)
