// Package socket gives a loop of package core stream sockets (TCP and Unix)
// whose conns are real net.Conns and whose listeners are net.Listeners, the
// Go sibling of Revolt's amphp/socket: code written for the standard
// library (io.Copy, bufio, crypto/tls, net/http's Server, a suite such as
// golang.org/x/net/nettest) runs on them unchanged.
//
//	ln, err := socket.Listen(l, "tcp", "127.0.0.1:7007")
//	if err != nil {
//		log.Fatal(err)
//	}
//	l.Defer(func(core.CallbackID) {
//		for {
//			c, err := ln.Accept() // the fiber suspends; the loop goes on
//			if err != nil {
//				return
//			}
//			l.Defer(func(core.CallbackID) { io.Copy(c, c); c.Close() })
//		}
//	})
//	if err := l.Run(); err != nil { // until ln is closed and the last conn ends
//		log.Fatal(err)
//	}
//
// It runs on Unix and on Windows (see Windows below); on other systems
// every constructor returns an error matching errors.ErrUnsupported (the
// package builds everywhere). examples/echo is a whole server.
//
// # Usable from anywhere, fastest on the loop
//
// Every Read, Write, Accept and connect first makes its system call, and
// waits only if it would block (EAGAIN), with one exception: on a stream,
// a fiber's Read that follows a short one (fewer bytes than asked for: the
// kernel had no more) waits for readiness first, since its read(2) would
// most likely say EAGAIN. That saves a system call in every round trip of
// a request-response protocol (tokio's reads do the same); readiness is
// level-triggered, so bytes that came meanwhile are read at once. How a
// call waits depends on the caller, which it finds out for itself
// (core.Loop.InFiber):
//
//   - from a fiber of the conn's loop (a callback, a microtask): the fiber
//     suspends and the loop resumes it when the socket is ready; other
//     fibers run meanwhile;
//   - from any other goroutine (main between runs, nettest's, net/http's):
//     the goroutine blocks until its call is done; if the loop is closed
//     meanwhile, the call fails instead of hanging.
//
// Who runs the loop, when goroutines need it: whoever is there. A
// goroutine whose call must wait hands its wait to the loop (Post) and
// waits in core.Loop.RunUntil: if a goroutine runs the loop (Run, or
// another call's RunUntil), it waits for its wake; if nobody does, it runs
// the loop itself until its own call is done, then lets it go, and a
// goroutine still waiting takes it over. A waiting call keeps the loop
// alive, so the run that serves one call never ends while another still
// waits: any number of goroutines may share the conns of a loop with
// nobody calling Run, with a goroutine in Run, or with runs starting and
// stopping meanwhile, and no call fails because the run that served it
// ended (TestGoroutinesShareLoop counts every byte at both ends). One rule
// follows: Close a loop once no goroutine is blocked on its sockets (or
// close them first): a blocked goroutine may be the one running the loop,
// and Close then stops that run and its calls fail with the loop's
// closing.
//
// A conn belongs to its loop. Called from a fiber of another loop it takes
// the goroutine path, which blocks that other loop. A fiber that replaced
// its profiler labels (pprof.Do with another context) is not known as a
// fiber meanwhile and would block its own loop for good: give pprof.Do
// the loop's FiberContext.
//
// # Waiting
//
// A socket waits through the loop's own primitive, core.FD (what the Go
// runtime's pollDesc is to net), not through the user-facing watcher API:
// the descriptor is registered with the driver at its first wait and
// stays registered until Close; a fiber waiting for a direction is
// resumed straight from the driver's event in that tick; deadlines are
// nodes of the loop's timer heap, one per direction. A waiting call keeps
// Run going, as a referenced Revolt watcher would. On the fiber path a
// Read or Write that suspends allocates nothing once the conn exists
// (TestFiberPathAllocatesNothing).
//
// Calls in one direction take turns, as net's do: two Writes never
// interleave their bytes, and the waiting turn is a fiber's suspension (or
// a goroutine's block), never a lock that blocks the loop's thread.
//
// # Serving a conn without a fiber
//
// A fiber blocked in Read holds its stack (about 4 KiB in all per conn)
// for as long as its conn is idle. A server with many idle conns serves
// them instead (Conn.Serve, Listener.Serve; ExampleListener_Serve is a
// line protocol): between runs a served conn waits holding no fiber and
// no read buffer (about 1 KiB per conn in all on epoll and stream,
// TestIdleServedConnections; netpoll adds a helper goroutine per
// descriptor either way), and its Handler runs in a fiber when bytes
// arrive, with them, and returns how many it consumed. Its next bytes wait
// for it, so its runs never overlap and see them in order; what it leaves
// is handed to it again, ahead of the next bytes.
//
// Reads go into a buffer that the served conns of a loop share (64 KiB,
// as nbio's and gnet's); only the bytes a Handler leaves are copied, into
// a buffer of the conn's that holds just them. A Handler may suspend (a
// Write, a timer, an httpclient call): it keeps its fiber and its in
// meanwhile, and the loop serves the other conns. Its Write is the conn's
// ordinary Write: a peer that does not read the answers suspends the
// Handler once the socket is full, and the conn is not read until it
// returns, so what the peer sends waits in the kernel, not in memory
// (TestServeWritesHoldBackReads). A wake, its run and the return to
// waiting allocate nothing (TestServeAllocatesNothing).
//
// A served conn keeps Run going, as a Read that waits does; its read
// deadline bounds its wait as it bounds a Read. Its Handler is called
// last with the error that ends it (the end of the stream, a reset, the
// deadline, Close, the loop's Close), then the conn is closed; a Handler
// that panics is not called again, its conn is closed, and the panic goes
// where the loop's callbacks' panics go. StopServing hands the conn back
// to Read, the bytes the Handler left first.
//
// # Deadlines, Close and the loop's Close
//
// SetDeadline, SetReadDeadline and SetWriteDeadline work from any
// goroutine. A waiting call with a deadline arms a timer of the loop; when
// it passes the call fails with an error for which
// errors.Is(err, os.ErrDeadlineExceeded) holds and whose Timeout() is
// true; a deadline already past fails the call before its system call; a
// deadline moved while a call waits takes effect at once.
//
// Close works from any goroutine and behaves as net's: it wakes every
// waiting call (they fail with an error wrapping net.ErrClosed), waits
// until the last call has left (from a fiber it suspends, from a goroutine
// it blocks), takes the descriptor out of the driver and closes it, and
// only then returns: a call never touches a file that took the number,
// and a listener's address can be bound again the moment Close returns
// (TestCloseReturnsAfterClose). A second Close, and any call after it,
// fails with net.ErrClosed.
//
// When the loop is closed, fibers waiting on a socket are unwound: their
// calls fail with an error wrapping both net.ErrClosed and
// core.ErrLoopClosed, and their conns are closed, so no descriptor
// outlives the loop. Goroutines waiting see the loop's Done channel and
// fail the same way. Any later call on a conn of a closed loop fails so
// too, and closes it; Close releases one that no call touched.
//
// # Errors
//
// Errors are those of package net: a *net.OpError (Op "read", "write",
// "accept", "dial", "listen", "close", "set") naming the network and the
// addresses, wrapping the *os.SyscallError of the system call (ECONNRESET,
// EPIPE, ECONNREFUSED, EADDRINUSE, ...), os.ErrDeadlineExceeded or
// net.ErrClosed. Read returns 0, io.EOF at the end of the stream, and 0,
// nil at once for an empty buffer. A listener out of descriptors (EMFILE,
// ENFILE) returns the error from Accept as a temporary net.Error, which
// net/http's Serve retries, keeps listening, and holds its next accept(2)
// back (5 ms, doubling to 1 s) so that a caller retrying at once does not
// spin the loop. A descriptor closed behind a socket's back (syscall.Close
// on what Control handed out, a bug) fails its calls with EBADF, as net's
// (WSAENOTSOCK on Windows); a call that waits on it when it goes is
// woken once the loop finds it gone (within a second), with an error that
// matches both that errno and core.ErrFDClosed, where net's on Unix waits
// on until Close. TestBadInput runs these cases on net's sockets and
// ours. The package never logs.
//
// # Windows
//
// On Windows a socket is named by its SOCKET handle, non-blocking
// (FIONBIO), and waited on through the loop's driver as on Unix; none of
// package net's overlapped I/O. TCP (IPv4, IPv6, dual-stack "tcp") and UDP
// work as above, with these differences, each what Windows imposes:
//
//   - no unix sockets: "unix" and "unixgram" fail with an error naming
//     AF_UNIX that matches errors.ErrUnsupported. Windows 10 has AF_UNIX
//     streams, but Wine, under which the package's Windows tests run,
//     refuses AF_UNIX, so nothing here could show them working;
//   - ListenConfig.ReusePort fails with an error naming SO_REUSEPORT
//     (Windows has none; its SO_REUSEADDR takes a port over instead of
//     sharing it, so listeners get no SO_REUSEADDR either, as with net);
//   - File (of a Conn, Listener or PacketConn) fails with an error
//     matching errors.ErrUnsupported: an *os.File made outside package net
//     would close the socket with CloseHandle, which Winsock forbids.
//     FileConn and FileListener work (WSADuplicateSocket), and leave the
//     file's socket non-blocking, as on Unix;
//   - errors carry Winsock's errno and message, as net's do there, and
//     match the Unix errno of the same meaning too: errors.Is(err,
//     syscall.ECONNRESET) holds for WSAECONNRESET (net's errors do not
//     match it), so code written for Unix needs no change;
//   - a datagram longer than the buffer is cut to it as on Unix, but the
//     read returns its count with WSAEMSGSIZE, as net's does on Windows
//     (and its sender, where net's returns none); ReadFrom into an empty
//     buffer returns 0 at once, as net's there, leaving the datagram;
//     a Write without address on a PacketConn without peer fails with
//     EDESTADDRREQ on every system;
//   - SetKeepAlivePeriod turns keep-alives on as it sets the period
//     (SIO_KEEPALIVE_VALS sets both at once), as net does on Windows
//     before 10 1709.
//
// What ran under Wine 8.0 only, and which Wine cannot show: the faults
// of the real WSAPoll (before Windows 10 2004 it never reports a failed
// connect, so on the driver built on it a dial to a refused port waits
// for its context there), UDP resets from ICMP messages (turned off as
// net turns them off; Wine sends none), and Windows' own error messages
// (Wine has none for most Winsock errnos). Under Wine a reset that comes
// while a read waits reads as the end of the stream on the stream driver:
// Wine's WSAPoll reports it and keeps nothing of it (afd passes it on).
//
// # Sharing with fibers: what blocks the loop
//
// A fiber must not block its goroutine on something that only the loop
// can release, since the loop runs on that goroutine:
//
//   - net/http's client from a fiber, on conns of the same loop, deadlocks:
//     the Transport's goroutines need the loop while the fiber waits on a
//     channel. Give the client package httpclient's Transport, whose
//     connections are this package's and whose waits suspend the fiber
//     alone; or run the whole client call through core.Await (the fiber
//     suspends, the loop stays free); from a plain goroutine it works as
//     is.
//   - crypto/tls holds a sync.Mutex across Write (and Read, and the
//     handshake): a tls.Conn used by one fiber at a time is fine, but two
//     fibers on one tls.Conn (two Reads, or a Read and a Write before the
//     handshake is done) block the loop's goroutine on the lock held by
//     the suspended first. TLSConn (TLSServer, TLSClient) is crypto/tls
//     made safe for that: share it as a Conn. The same holds for every
//     wrapper that holds a sync.Mutex across I/O (bufio.Writer shared with
//     a lock, a log.Logger on a conn). A Conn itself, and wrappers without
//     locks (bufio used by one fiber, io.Copy), are safe to share.
//   - net/http's Server (http.Serve on a Listener) runs its handlers on
//     goroutines of its own: its conns take the goroutine path, with a
//     goroutine running the loop.
package socket
