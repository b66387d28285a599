// Package httpclient is an HTTP/1.1 client whose connections are the
// sockets of a loop of package core (Revolt's amphp/http-client, in Go's
// own interface): Transport is an http.RoundTripper, so http.Client's
// redirects, cookies and timeouts, and httputil.ReverseProxy, work on it
// unchanged.
//
//	tr := &httpclient.Transport{Loop: l}
//	defer tr.CloseIdleConnections()
//	client := &http.Client{Transport: tr}
//	l.Defer(func(core.CallbackID) {
//		resp, err := client.Get(url) // the fiber suspends; the loop goes on
//		...
//	})
//
// # From a fiber or from anywhere
//
// A request made from a fiber of the Transport's loop (a callback, a
// handler of package httpserver) suspends that fiber alone while it dials,
// writes and reads, and the loop serves everyone else meanwhile: no
// goroutine is started for a request or a connection, where net/http's
// Transport runs two per connection and blocks the loop when called from a
// fiber. A request made from any other goroutine blocks that goroutine, as
// net/http's does, with whoever is there running the loop (see package
// socket). A response body is read the same way, from wherever it is read.
//
// # What it does as net/http's Transport does
//
// Keep-alive: a connection whose response body was read to its end (or
// that had none) goes back to a pool per scheme and host, and the next
// request to that host takes it; MaxIdleConnsPerHost (2 by default),
// MaxIdleConns, MaxConnsPerHost (a request over the limit waits for a
// connection) and IdleConnTimeout bound the pool; a body closed before its
// end closes its connection. A connection that the server closed while it
// was idle is not used again (the pool peeks at it before use), and
// a request that failed on a reused connection before any byte of a
// response is sent again on another if it can be replayed (no body, or
// GetBody, and an idempotent method or an Idempotency-Key header), for as
// long as it fails on reused ones, as net/http retries: a POST that was
// written is never sent twice, and the tries end on a new connection at
// the latest.
//
// Requests are written by net/http's own Request.Write (Host, User-Agent,
// Content-Length or chunked, trailers) and responses read by
// http.ReadResponse (1xx skipped, chunked bodies, trailers, HEAD). Unless
// DisableCompression, a request without Accept-Encoding asks for gzip and
// the body is decompressed (Response.Uncompressed). https URLs use
// socket.TLSClient with TLSClientConfig (ALPN http/1.1). A 101 Switching
// Protocols response's Body is the connection, writable (io.ReadWriteCloser),
// as net/http's.
//
// Cancellation: the request's context ends a dial, a TLS handshake, a
// wait for a pooled connection, the request's write and every read of its
// response, body included; RoundTrip then returns the context's error.
// ResponseHeaderTimeout and TLSHandshakeTimeout bound what they name.
// http.Client.Timeout works too, though net/http's client starts a timer
// goroutine per request for a RoundTripper it does not know: a context
// deadline on the request does the same without it.
//
// Left out: proxies (Proxy, CONNECT), HTTP/2, Expect: 100-continue waits
// (the body is sent at once, as net/http's Transport with a zero
// ExpectContinueTimeout), and a dialer of the caller's choosing.
package httpclient
