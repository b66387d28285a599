// Package httpserver serves HTTP/1.1 from a loop of package core: any
// http.Handler, unchanged, with a fiber per connection while it has a
// request to serve, on the listeners and conns of package socket
// (Revolt's amphp/http-server, in Go's own interface). A connection that
// waits for its next request holds no fiber (socket.Conn.Serve); over
// TLS it keeps its fiber.
//
//	l, err := eventloop.New()
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer l.Close()
//	ln, err := socket.Listen(l, "tcp", "127.0.0.1:8080")
//	if err != nil {
//		log.Fatal(err)
//	}
//	srv := &httpserver.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
//	err = srv.Serve(l, ln) // runs l until Shutdown or Close: http.ErrServerClosed
//
// Serve called from main, or any goroutine that is not the loop's, runs
// the loop itself until serving ends. Do not call Run as well: a Run that
// starts before Serve has posted its accept loop finds nothing to do and
// returns at once, and one that starts while Serve runs the loop returns
// core.ErrLoopRunning. Called from a fiber of the loop, Serve serves in
// that fiber and the program runs the loop as usual: the Accept waiting
// keeps Run going until the server is shut down. The package's examples
// show both whole.
//
// Serve returns http.ErrServerClosed as soon as Shutdown begins, while the
// requests in flight are still being served, as net/http's does: a
// program that returns from main (or closes the loop) then drops them,
// and its clients get EOF. Wait for Shutdown to return instead;
// Example_shutdown does so on SIGINT.
//
//	l.Defer(func(core.CallbackID) {
//		err := srv.Serve(l, ln) // http.ErrServerClosed after Shutdown or Close
//		...
//	})
//	err = l.Run()
//
// Requests are read with net/http's own parser and checked as net/http's
// server checks them, and the ResponseWriter frames responses as
// net/http's does (Content-Length when the handler's body is known by its
// end or declared, chunked otherwise; HEAD; 1xx with WriteHeader; Expect:
// 100-continue sent on the body's first Read; keep-alive, pipelined
// requests answered in order; Connection: close). Responses to requests
// that came together leave together: while the next request is already
// read, a finished response waits in the write buffer, which goes out
// when the batch ends, fills, is flushed, or when a handler suspends (so
// that a response that is ready never waits for a slow handler's); 16
// pipelined requests cost one write. It implements
// http.Flusher, http.Hijacker (the conn is the *socket.Conn, still on the
// loop), what http.ResponseController asks for (Flush, the read and
// write deadlines, EnableFullDuplex), and io.ReaderFrom: http.FileServer,
// http.ServeContent and io.Copy from an *os.File send files with
// sendfile(2) on Linux, darwin, FreeBSD and DragonFly (a copy elsewhere,
// Windows included), as net/http's does. ServeTLS serves HTTPS with
// TLSConfig over socket.TLSConn, crypto/tls made safe for the loop's
// fibers (a file is then copied: the kernel cannot encrypt it). The Server's fields mean what
// net/http.Server's of the same name mean.
//
// # Handlers run on the loop
//
// A handler runs in its connection's fiber, on the loop's goroutine. It
// may do what suspends a fiber: read the body or write the response (the
// fiber suspends while the socket is not ready), sleep on a timer of the
// loop, wait on a Suspension, or call a blocking Go function through
// core.Await (LoopFromContext gives the loop from the request's context),
// and the loop serves the other connections meanwhile. It must not block
// the goroutine (a channel receive, a sync.Mutex held across I/O,
// time.Sleep, a database/sql call, net/http's client on this loop's
// conns): that stops every connection of the loop. Package socket's doc
// lists what blocks the loop. For outgoing HTTP calls, give http.Client
// (or httputil.ReverseProxy) package httpclient's Transport on the same
// loop: a call suspends the handler's fiber alone. A handler that blocks, the standard
// library's among them (net/http/pprof's Profile and Trace,
// http.TimeoutHandler), is served with Blocking, on a goroutine of its
// own, on the same Server and mux; ExampleBlocking mounts pprof so. With
// the loop's watchdog on (core.WithWatchdog, EVENTLOOP_DEBUG_SLOW), a
// handler that holds the loop past the threshold is reported by name,
// with that advice.
//
// The request's context is cancelled when the handler returns, when a
// write to the client fails, when the client closes or resets the
// connection, over TLS as over TCP, and by Close; not by Shutdown. The
// client is watched from the first call of the context's Done or, with a
// body not yet read to its end, from the handler's read of that end
// (until then the client's bytes are the body's), as net/http's
// background read watches: with socket.PeerWatch over TCP, and over TLS
// by a fiber that reads one byte ahead (see ServeTLS). The context is
// safe from any goroutine, and contexts derived from it attach to it
// without a goroutine.
//
// # Which server
//
// Two ways to serve HTTP on a loop:
//
//   - Server (this package): a fiber per connection with a request, one
//     goroutine for the whole loop. Cheapest per connection (an idle
//     keep-alive conn holds no fiber and no buffer, about 4 KiB in all;
//     over TLS it holds its fiber too) and per request; handlers must
//     not block the goroutine (above), or are wrapped in Blocking. For
//     handlers written for the loop, plain ones that compute and answer,
//     files, and a few that block.
//   - net/http's Server on a socket.Listener (http.Serve(ln, h)): a
//     goroutine per connection, whose I/O waits on the loop. Any handler
//     works, blocking ones included, and so does everything net/http
//     offers (HTTP/2 over TLS, its own Shutdown); each call crosses from a
//     goroutine to the loop, which costs more than both servers alone.
//     For handlers that block, next to code that lives on the loop.
//
// Where nothing else shares the loop, net/http on its own listener is the
// simpler choice.
//
// # Where it differs from net/http
//
//   - A request with both Content-Length and Transfer-Encoding: chunked
//     gets 400 and the connection closes (net/http serves it chunked);
//     RFC 9112 section 6.1 says such a message "ought to be handled as an
//     error", being the shape of request smuggling.
//   - A handler that panics before its response left gets 500 with
//     Connection: close (net/http closes without an answer); after, the
//     connection is cut, as with net/http. The panic is logged with its
//     stack (http.ErrAbortHandler is not), and the server serves on.
//   - A 413 answered to a request with a body closes the connection with
//     Connection: close, which is what net/http does when
//     http.MaxBytesReader stops a body (it learns of it through an
//     unexported method); net/http keeps the connection after a 413 of
//     another handler that read the body to its end.
//   - A connection that closes with a request body left unread (a 413, a
//     handler that answered without reading, a client that asked to
//     close) is shut for writing after the response, and the rest of the
//     body is read and dropped for up to half a second before the close,
//     so that the close cannot reset the connection under the response.
//     net/http does so only after a body given up as too large; after
//     the others its client may see a reset instead of the response.
//   - A handler that answers 101 Switching Protocols to a request that
//     expects 100-continue sends 100 Continue at once, ahead of the 101,
//     where net/http sends it ahead of the 101 when the body is first
//     read, and not at all if it is not.
//   - HTTP/1 only: no HTTP/2 (ServeTLS leaves h2 out of ALPN).
//     BaseContext and ConnContext are not offered (the request's context
//     carries the loop, the local address and its cancellation).
//
// The package builds everywhere; it serves where package socket makes
// listeners (unix systems and Windows).
package httpserver
