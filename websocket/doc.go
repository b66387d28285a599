// Package websocket is RFC 6455 WebSocket, with RFC 7692's
// permessage-deflate, on a loop of package core: a Server that upgrades
// from a route of package httpserver (it is an http.Handler) or accepts
// on a socket.Listener of its own (Server.Serve), and a client of ws://
// and wss:// URLs (Dialer.Dial), both with the same Conn.
//
//	srv := &websocket.Server{Options: websocket.Options{
//		OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
//			c.WriteMessage(typ, p) // queued: it never waits
//		},
//	}}
//	l.Defer(func(core.CallbackID) { httpserver.Serve(l, ln, srv) })
//
// Example_echo is that server and a client; Example_chat is a chat room
// (broadcast, join and leave) in a Server of 26 lines; ExampleDialer_Dial
// is a client on a goroutine, with compression.
//
// # Idle conns hold nothing
//
// A conn waits for its next frame as a served conn of package socket
// (socket.Conn.Serve): no fiber, no read buffer, only its Conn (240
// bytes) and what socket keeps for a served conn. 1 000 idle conns leave
// the loop's live fibers where they were and cost 270-290 bytes of heap
// each beyond a served socket conn, on every driver here
// (TestIdleConnsHoldNothing). A conn upgraded over TLS (httpserver with
// a TLS config) cannot be served so: a fiber reads it instead, for its
// whole life.
//
// # Messages
//
// OnMessage gets each data message whole (fragments joined, inflated if
// compressed, text checked as UTF-8), in a fiber of the loop, in order:
// the conn's next message waits until it returns. It may suspend (a
// timer, an httpclient call, a core.Await); the loop serves other conns
// meanwhile. Its p is valid until it returns: most messages are handed
// over where they were read, in the buffer the loop's served conns share.
// A message whose bytes are not all there yet costs its conn the bytes
// so far, not a buffer of the largest message. A callback that panics
// (OnOpen, OnMessage) ends its conn, which is closed, and OnClose gets
// CloseAbnormal; the panic goes where the loop's callbacks' panics go
// (the loop's error handler, or Run's result).
//
// # Sending
//
// WriteMessage, WritePrepared, Ping and Close are safe from any fiber or
// goroutine, and never wait: they encode the frame (copying p) and queue
// it; a flush on the loop writes what is queued, all of it in one write,
// in a fiber that exists only while there is something to write (it
// suspends while the socket is full). The queue's buffer comes from a
// pool and goes back once written, so an uncompressed message allocates
// nothing (TestAllocsPerEcho) and an idle conn holds no buffer. Sends from one handler run go out
// together once it returns or suspends. The queue of a conn is bounded
// (Options.MaxQueuedBytes): past the bound the send fails with
// ErrQueueFull and the conn closes with 1008 (policy violation) rather
// than make the sender wait: a peer that does not read costs at most the
// bound, and a broadcast is never held up by its slowest member
// (TestSlowReaderClosed). A pong to a ping replaces one queued and not
// yet written, so a peer that pings and does not read costs one frame.
// Broadcast (a PreparedMessage) encodes its frame once for all the
// server conns that take it unchanged, compressed once per level, and a
// conn with nothing else queued holds that frame itself, not a copy.
// NextWriter sends a message in fragments, a frame per Write, for one
// too large to hold whole, compressed as it goes where the conn
// compresses and the peer's window is compress/flate's: the conn's other
// messages wait behind it until it is closed, pings and pongs go between
// its fragments.
//
// # Closing
//
// Close sends a close frame behind what was queued, and the TCP conn is
// closed when the peer's close frame comes, or after
// Options.CloseTimeout. A peer's close frame is answered with its code,
// then the conn closes. A protocol error closes the conn with the code
// RFC 6455 gives it: 1002 for a frame that breaks the framing rules
// (reserved bits or opcodes, an unmasked client frame or a masked server
// frame, a continuation with nothing to continue, a fragmented or long
// control frame, a length of 2^63 or more, a close payload of one byte
// or with a code that may not be sent), 1007 for text that is not UTF-8
// (checked fragment by fragment as it comes) or data that does not
// inflate, 1009 for a frame or message over its limit, including one
// that inflates past it however small it came (a decompression bomb).
// OnClose is called once with a CloseError: the code and reason of the
// close frame that ended the conn, the peer's (Remote) or ours, or
// CloseAbnormal when the conn ended without one. With
// Options.PingInterval, a conn from which nothing comes for that long is
// pinged, and closed if nothing comes for as long again.
//
// # Compression
//
// With Options.Compression a server accepts a client's
// permessage-deflate offer and a client makes one. Without
// Options.ContextTakeover, each message is compressed afresh with a
// compressor taken from a pool, and both sides are asked not to take
// over their window (server_no_context_takeover,
// client_no_context_takeover; a client that does anyway is still
// understood when it offered it): an idle conn holds nothing of
// compression. With it, a conn keeps its compressor and the peer's last
// 32 KiB, for its whole life. compress/flate always compresses with a
// 32 KiB window and cannot be told to use less; a peer that asks for a
// smaller one (server_max_window_bits from a client, client_max_window_bits
// from a server) is honoured by sending compressed only the messages no
// longer than its window, whose back-references cannot reach further,
// and the others as they are, which RFC 7692 allows for any message; the
// window's parameter is then answered as asked, and context takeover is
// off for what this side compresses. Inflating takes any window.
//
// # Dependencies
//
// The codec is the package's own, on the standard library alone
// (compress/flate for permessage-deflate): the module's go.mod gains no
// dependency for it. gobwas/ws, made for event loops, would have been
// one; its headers are read from an io.Reader, while a served conn hands
// its bytes to a function and takes back how many it consumed, which is
// what the frame parser here is written for, with the limits checked
// from a frame's header before its payload is waited for.
//
// The package runs where package socket does (Unix and Windows); its
// tests run on every driver, Windows' under Wine.
package websocket
