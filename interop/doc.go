// Package interop proves that WebSocket libraries written for net/http work,
// unchanged, on the loop's HTTP server (package httpserver, a fiber per
// connection on package socket's conns): github.com/gorilla/websocket and
// github.com/coder/websocket upgrade requests served by httpserver.Server
// and talk to their own clients, on every driver of the build. It is a
// module of its own (go.mod here, with a replace of the library) so that the
// WebSocket libraries stay out of the library's go.mod, and so out of the
// build of every program that uses the loop. The package has no API: its
// tests are what it says.
//
// What the tests show, each on every driver: text and binary messages
// echoed, small and of 1 MiB (the server's writes wait for the client: the
// socket buffers are made small), by each library's server to each
// library's client; a fiber reading a conn while another fiber writes it,
// every byte counted at both ends; pings answered with pongs both ways; the
// close handshake started by either end, its code and reason seen by the
// other; a client that goes without a close frame (FIN or reset) ending the
// server's read at once, and a handler that returns while its client waits
// in a read; a frame that claims 2^63 bytes, or more than the read limit,
// failing as on net/http's server (the same error, the same bytes sent
// back); bad upgrade requests answered as net/http answers them (status,
// headers, body). No case leaves a goroutine behind, nor (on Unix) a
// descriptor. Example_chat is a broadcast chat on one loop.
//
// The project's own package websocket meets the libraries too
// (native_test.go): gorilla's and coder's clients against its server,
// upgraded from an httpserver route and on a listener of its own, and its
// client against their servers on net/http, compressed (with and without
// context takeover where the library has it) and not. One difference
// from net/http: a reset that comes while the server's read waits reads as
// the end of the stream on the stream driver under Wine (TestPeerGoes says
// why).
//
// # Rules for WebSocket conns on fibers
//
// A fiber is a goroutine that takes turns holding the loop. A fiber that
// waits on a channel, or on a sync.Mutex, holds the loop while it waits:
// nothing else on the loop runs, the socket I/O it waits for included. Both
// libraries guard their writes with a channel used as a mutex, held across
// the socket's Write, which on a slow peer suspends the writing fiber with
// the lock held; a second fiber that asks for the lock meanwhile holds the
// loop until its own timeout, or for good where there is none. What the
// tests found, and what to do:
//
//   - One fiber per conn doing all its reads and writes in turn (an echo, a
//     request and its answer) is safe with both libraries: no lock is ever
//     contended, every wait suspends the fiber (TestEcho, TestPing,
//     TestCloseHandshake).
//   - A reader fiber and one writer fiber are safe while the reader writes
//     nothing (TestReadWhileWriting). But both libraries' readers do write:
//     the pong to a ping, the reply to a close, the close frame after a
//     protocol error or a message over the read limit. If the writer is
//     suspended mid-write then, the reader waits for its lock holding the
//     loop: gorilla for 1 s (then it drops the frame), coder for 5 s (then
//     the read fails). TestStallsLoop shows each: the loop does not tick for
//     that long. A client can cause it at will: it stops reading until the
//     server's writes wait, then pings.
//   - gorilla: hand the pong and the close reply to the writer. SetPingHandler
//     and SetCloseHandler push them onto the writer's queue; one writer
//     fiber per conn takes its messages from a queue that it waits on with
//     a core.Suspension, never a channel (Example_chat's outbox,
//     TestGorillaPongHandedToWriter). What no handler can take over, the
//     close frame after a protocol error or over the read limit, still
//     holds the loop for a second (TestStallsLoop's gorilla-protocol-error);
//     and if that close frame finds the lock free but the socket full, the
//     reader suspends holding the lock, and the writer's next write waits
//     on it with no timeout: the loop stops for good (read from the source,
//     not made deterministic here). Where hostile clients must not cost
//     that, serve gorilla's conns off the loop (httpserver.Blocking).
//     Two fibers writing one conn make gorilla panic ("concurrent write to
//     websocket connection", TestGorillaTwoWriters); a sync.Mutex around the
//     writes, the fix on goroutines, would stop the loop for good instead,
//     and so does a WriteControl without deadline that finds the writer
//     mid-write (it waits 1000 hours).
//   - coder/websocket: any call that may wait on another call's lock holds
//     the loop while it waits. Two fibers writing: the second holds it until
//     its context ends, then fails (TestCoderTwoWriterFibers). Ping waits on a
//     channel for the reader to see the pong, so from a fiber it fails
//     however fast the peer (TestCoderPingFromFiber). Close waits up to 5 s
//     for the lock of a fiber in Read (TestStallsLoop). Its pong has no
//     handler to take over. So make every call of a conn that another fiber
//     uses through core.Await: a goroutine then waits on the lock, and the
//     fiber suspends (TestCoderThroughAwait, and TestPing's server-pings);
//     or serve the handler with httpserver.Blocking and write it as for
//     net/http (TestCoderBlocking). CloseNow waits on no lock.
//   - The same holds for both libraries served from a goroutine: through
//     httpserver.Blocking, or net/http on a socket.Listener, a conn is used
//     as on net/http, with net/http's rules.
//   - Neither library starts goroutines of its own on the server side but
//     coder's CloseRead, whose goroutine reads the conn off the loop (a
//     goroutine's socket calls block that goroutine, never the loop). The
//     clients run on ordinary goroutines, as with net/http.
//
// With the loop's watchdog on (core.WithWatchdog, EVENTLOOP_DEBUG_SLOW=200ms),
// a fiber that holds the loop on one of these locks is reported while it
// waits, with its stack: a goroutine "[select]" whose top frame is the
// library's (gorilla's (*Conn).WriteControl, coder's (*mu).lock).
package interop
