package httpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// ServeTLS is Serve over TLS, as net/http.Server's: each connection is a
// socket.TLSConn (crypto/tls, safe for the fibers of the loop) with
// TLSConfig, or an empty config, and the certificate and key of
// certFile and keyFile (PEM) if the config has no certificate of its own
// (Certificates, GetCertificate or GetConfigForClient) or they are given.
// ALPN offers TLSConfig's NextProtos with h2 left out and http/1.1 put
// in: a client that asks for h2 gets HTTP/1.1, as from net/http without
// HTTP/2. TLSConfig itself is not changed, so a config shared with
// net/http's servers or clients keeps its h2. The handshake is made in
// the connection's fiber, bounded by the shortest of ReadHeaderTimeout,
// ReadTimeout and WriteTimeout; a request over plain HTTP gets net/http's
// 400, and a failed handshake is logged as net/http logs it. Requests
// carry the handshake's state in Request.TLS.
//
// The request's context is cancelled when the client goes away, as over
// plain TCP (see the package doc). The watch differs: a peek at the
// socket cannot tell a close_notify from a pipelined request (its bytes
// are records), so a fiber of its own reads one byte through TLS, as
// net/http's background read does, and keeps it for the next request.
func (s *Server) ServeTLS(l *core.Loop, ln *socket.Listener, certFile, keyFile string) error {
	config := &tls.Config{}
	if s.TLSConfig != nil {
		config = s.TLSConfig.Clone()
	}
	config.NextProtos = http1Protos(config.NextProtos)
	hasCert := len(config.Certificates) > 0 || config.GetCertificate != nil || config.GetConfigForClient != nil
	if !hasCert || certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			if ln != nil {
				ln.Close()
			}
			return err
		}
		// Clone shares the slice: appending into its spare room would
		// write into the caller's array.
		config.Certificates = append(slices.Clip(config.Certificates), cert)
	}
	return s.serve(l, ln, config)
}

// http1Protos is protos for ALPN here, as a slice of its own: h2 out (no
// HTTP/2 here), http/1.1 in. Clone shares the caller's slice, which a
// net/http server or client, or another ServeTLS, may be using.
func http1Protos(protos []string) []string {
	out := make([]string, 0, len(protos)+1)
	for _, p := range protos {
		if p != "h2" {
			out = append(out, p)
		}
	}
	if !slices.Contains(out, "http/1.1") {
		out = append(out, "http/1.1")
	}
	return out
}

// handshake makes the TLS handshake of a new connection, as net/http's
// server does; false: the connection is done.
func (c *conn) handshake() bool {
	d := c.srv.tlsHandshakeTimeout()
	if d > 0 {
		c.raw.SetDeadline(time.Now().Add(d))
	}
	err := c.tls.HandshakeContext(context.Background())
	if d > 0 {
		c.raw.SetDeadline(time.Time{})
	}
	if err != nil {
		var re tls.RecordHeaderError
		if errors.As(err, &re) && re.Conn != nil && looksLikeHTTP(re.RecordHeader) {
			io.WriteString(c.raw, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
			return false
		}
		c.srv.logf("http: TLS handshake error from %s: %v", c.remoteAddr, err)
		return false
	}
	st := c.tls.ConnectionState()
	c.tlsState = &st
	return true
}

// tlsHandshakeTimeout is net/http's: the shortest of the three timeouts
// that are set, or none.
func (s *Server) tlsHandshakeTimeout() time.Duration {
	var d time.Duration
	for _, v := range [...]time.Duration{s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout} {
		if v > 0 && (d == 0 || v < d) {
			d = v
		}
	}
	return d
}

// looksLikeHTTP is net/http's test of the first five bytes a TLS server
// got: a plain HTTP request.
func looksLikeHTTP(hdr [5]byte) bool {
	switch string(hdr[:]) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO":
		return true
	}
	return false
}
