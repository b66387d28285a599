//go:build unix || windows

package interop

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// The traps of fibers: a fiber that waits on a channel holds the loop, and
// both libraries wait on channels used as locks, held across the socket's
// Write. Each unsafe case below is made deterministic: the fiber holding
// the lock is known to be suspended mid-write (its message is larger than
// the socket buffers, and the client has not read yet), and the proof that
// the loop stood still is the loop's own tick counter, unchanged across a
// call that took the library's whole timeout: no wall-clock bound decides
// an outcome, only lower bounds that a timer cannot beat.

// stall is what a fiber measured around a call: how long it took, and
// whether the loop ticked meanwhile (a call that suspends its fiber lets
// the loop tick; one that blocks the goroutine stops it).
type stall struct {
	elapsed time.Duration
	ticked  bool
}

// measure runs call in a fiber of l and says how it went.
func measure(l *core.Loop, call func()) stall {
	ticks, start := l.Stats().Ticks, time.Now()
	call()
	return stall{elapsed: time.Since(start), ticked: l.Stats().Ticks != ticks}
}

// check fails t unless s shows the loop held for at least d.
func (s stall) check(t *testing.T, what string, d time.Duration) {
	t.Helper()
	if s.ticked || s.elapsed < d {
		t.Errorf("%s: took %v, loop ticked meanwhile: %v; want the loop held for at least %v", what, s.elapsed, s.ticked, d)
	}
}

// writerSuspended starts a fiber that writes a message larger than the
// socket buffers hold to a client that does not read yet, then a fiber that
// runs after it in the same tick, when it is suspended mid-write with the
// library's write lock held: then reports "writer suspended" on ev.
// write reports its result on ev when it returns.
func writerSuspended(l *core.Loop, ev events, write func() error) *fiber {
	w := startFiber(l, func() { ev.add("big message written: %v", write()) })
	startFiber(l, func() { ev.add("writer suspended") })
	return w
}

// expect receives the next event and fails t unless it is want.
func expect(t *testing.T, ev events, want string) {
	t.Helper()
	if got := recv(t, ev); got != want {
		t.Fatalf("event %q, want %q", got, want)
	}
}

// The calls that hold the loop for a timeout of the library's own while
// another fiber holds the lock they want, suspended in I/O; each case
// shows the loop held (no tick) for at least that long, then the call
// failing. The cases run in parallel, all drivers at once: each waits, it
// does not compute.
//
//   - gorilla-default-pong: gorilla's default ping handler, in the reader's
//     fiber, while the writer fiber is suspended mid-write. WriteControl
//     waits on the write lock (a select on a channel, with a 1 s timer),
//     which the writer cannot release while the loop is held; after a second
//     the timer fires and the handler drops the pong (gorilla ignores a
//     timeout there): the client never gets it.
//     (TestGorillaPongHandedToWriter is the fix.)
//   - gorilla-protocol-error: with the pong and the close reply handed to
//     the writer (Example_chat's pattern), a frame that breaks the protocol
//     (a reserved bit set) still makes gorilla's reader write a close frame
//     itself, with the same 1 s wait: a client that stops reading and then
//     sends a bad frame holds the loop for a second. So does a message over
//     the read limit.
//   - coder-close-while-reading: coder's Close while the handler's fiber is
//     in Read: Close's handshake waits up to 5 s for the read lock to read
//     the answer (the client answered at once).
//   - coder-pong-while-writing: coder's reader writes the pong itself, and
//     waits up to 5 s for the write lock of a writer fiber suspended
//     mid-write; then its Read fails, and the client gets no pong.
func TestStallsLoop(t *testing.T) {
	cases := []struct {
		name string
		hold time.Duration // how long the library waits
		f    func(t *testing.T, l *core.Loop, hold time.Duration)
	}{
		{"gorilla-default-pong", time.Second, stallGorillaDefaultPong},
		{"gorilla-protocol-error", time.Second, stallGorillaProtocolError},
		{"coder-close-while-reading", 5 * time.Second, stallCoderCloseWhileReading},
		{"coder-pong-while-writing", 5 * time.Second, stallCoderPongWhileWriting},
	}
	testloop.NoLeaks(t)
	testloop.Watchdog(t, 2*time.Minute)
	for _, name := range testloop.Drivers() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.f(t, newLoop(t, name), tc.hold)
				})
			}
		})
	}
}

func stallGorillaDefaultPong(t *testing.T, l *core.Loop, hold time.Duration) {
	ev := newEvents()
	big := payload(binary, bigMessage, 7)
	var s stall
	ts := serve(t, l, gorillaHandler(ev, func(c *gorilla.Conn) {
		def := c.PingHandler()
		c.SetPingHandler(func(p string) error {
			ev.add("ping %s", p)
			var err error
			s = measure(l, func() { err = def(p) })
			ev.add("ping handler returned %v", err)
			return err
		})
		writer := writerSuspended(l, ev, func() error {
			if err := c.WriteMessage(binary, big); err != nil {
				return err
			}
			return c.WriteMessage(text, []byte("end"))
		})
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				break
			}
		}
		writer.wait()
	}))
	c := newGorillaClient(t, ts.url)
	expect(t, ev, "writer suspended")
	if err := c.ping("p"); err != nil {
		t.Fatal(err)
	}
	expect(t, ev, "ping p")
	// The reader is in the default handler now, holding the loop: the
	// client reads from here on, yet the writer stays where it is.
	for _, want := range []string{string(big), "end"} {
		if _, p, err := c.read(); err != nil || !bytes.Equal(p, []byte(want)) {
			t.Fatalf("client read %d bytes, %v; want %d", len(p), err, len(want))
		}
	}
	expect(t, ev, "ping handler returned <nil>")
	expect(t, ev, "big message written: <nil>")
	s.check(t, "the default ping handler", hold)
	if code, err := c.closeHandshake(gorilla.CloseNormalClosure, ""); err != nil || code != gorilla.CloseNormalClosure {
		t.Errorf("close handshake: %d, %v", code, err)
	}
	// Every frame the server sent has been read: a pong would have come
	// before the close reply.
	select {
	case p := <-c.pongs:
		t.Errorf("the client got a pong %q; want it dropped", p)
	default:
	}
	ts.waitReturned(t, 1)
}

func stallGorillaProtocolError(t *testing.T, l *core.Loop, hold time.Duration) {
	ev := newEvents()
	big := payload(binary, bigMessage, 7)
	var s stall
	ts := serve(t, l, func(w http.ResponseWriter, r *http.Request) {
		var tc *tickConn
		c, err := upgrader.Upgrade(hijackVia(w, func(c net.Conn) net.Conn { tc = &tickConn{Conn: c, l: l}; return tc }), r, nil)
		if err != nil {
			ev.add("upgrade: %v", err)
			return
		}
		defer c.Close()
		out := newOutbox(l)
		c.SetPingHandler(func(p string) error { out.push(gorilla.PongMessage, []byte(p)); return nil })
		c.SetCloseHandler(func(code int, _ string) error {
			out.push(gorilla.CloseMessage, gorilla.FormatCloseMessage(code, ""))
			return nil
		})
		out.push(binary, big)
		writer := startFiber(l, func() { writeLoop(c, out) })
		startFiber(l, func() { ev.add("writer suspended") })
		tc.arm()
		_, _, err = c.ReadMessage() // waits for the bad frame
		// From the socket's Read that brought the frame to here, the loop
		// did not tick.
		s = tc.since()
		ev.add("read: %v", err)
		out.close()
		writer.wait()
	})
	c := newGorillaClient(t, ts.url)
	expect(t, ev, "writer suspended")
	// A text frame with RSV2 set, no payload, masked with a zero key.
	if _, err := c.netConn().Write([]byte{0x80 | 0x20 | text, 0x80, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if _, p, err := c.read(); err != nil || !bytes.Equal(p, big) {
		t.Fatalf("client read %d bytes, %v; want %d", len(p), err, len(big))
	}
	expect(t, ev, "read: websocket: RSV2 set")
	s.check(t, "gorilla's reader, on a protocol error", hold)
	// The close frame gorilla's reader wanted to send was dropped after its
	// second: the client sees the conn end, with no close frame.
	if _, _, err := c.read(); !gorilla.IsCloseError(err, gorilla.CloseAbnormalClosure) {
		t.Errorf("client read %v; want the conn's end without a close frame", err)
	}
	ts.waitReturned(t, 1)
}

// tickConn is a server's conn that notes the loop's tick and the time when
// the first Read after arm returns: the one that brings the frame a reader
// waits for, before the library looks at it (and arms a timer of its own).
// Only the conn's reader fiber calls it.
type tickConn struct {
	net.Conn
	l     *core.Loop
	armed bool
	ticks uint64
	at    time.Time
}

func (c *tickConn) arm() { c.armed = true }

func (c *tickConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.armed {
		c.armed = false
		c.ticks, c.at = c.l.Stats().Ticks, time.Now()
	}
	return n, err
}

// since says how long ago the Read after arm returned, and whether the
// loop ticked since.
func (c *tickConn) since() stall {
	return stall{elapsed: time.Since(c.at), ticked: c.l.Stats().Ticks != c.ticks}
}

// hijackVia returns w with its Hijack handing out wrap's conn instead.
func hijackVia(w http.ResponseWriter, wrap func(net.Conn) net.Conn) http.ResponseWriter {
	return hijackWriter{w, wrap}
}

type hijackWriter struct {
	http.ResponseWriter
	wrap func(net.Conn) net.Conn
}

func (h hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return h.wrap(c), brw, nil
}

func stallCoderCloseWhileReading(t *testing.T, l *core.Loop, hold time.Duration) {
	ev := newEvents()
	var s stall
	ts := serve(t, l, func(w http.ResponseWriter, r *http.Request) {
		c, err := coder.Accept(w, r, nil)
		if err != nil {
			ev.add("accept: %v", err)
			return
		}
		defer c.CloseNow()
		closer := startFiber(l, func() {
			ev.add("closing")
			var err error
			s = measure(l, func() { err = c.Close(4000, "bye") })
			ev.add("close: %v", err)
		})
		_, _, err = c.Read(context.Background())
		ev.add("read: %v", err)
		closer.wait()
	})
	c, ctx := dialCoder(t, ts.url, nil)
	// The client answers the close at once, and is done.
	if _, _, err := c.Read(ctx); coder.CloseStatus(err) != 4000 {
		t.Errorf("client read: %v; want the server's close 4000", err)
	}
	expect(t, ev, "closing")
	expect(t, ev, "read: failed to get reader: use of closed network connection")
	expect(t, ev, "close: failed to close WebSocket: failed to acquire lock: context deadline exceeded")
	s.check(t, "Close", hold)
	ts.waitReturned(t, 1)
}

func stallCoderPongWhileWriting(t *testing.T, l *core.Loop, hold time.Duration) {
	ev := newEvents()
	big := payload(binary, bigMessage, 7)
	var s stall
	ts := serve(t, l, func(w http.ResponseWriter, r *http.Request) {
		var tc *tickConn
		c, err := coder.Accept(hijackVia(w, func(c net.Conn) net.Conn { tc = &tickConn{Conn: c, l: l}; return tc }), r, &coder.AcceptOptions{
			// Called by the reader just before it writes the pong.
			OnPingReceived: func(context.Context, []byte) bool { ev.add("ping"); return true },
		})
		if err != nil {
			ev.add("accept: %v", err)
			return
		}
		defer c.CloseNow()
		writer := writerSuspended(l, ev, func() error { return c.Write(context.Background(), binary, big) })
		tc.arm()
		_, _, err = c.Read(context.Background())
		// From the socket's Read that brought the ping to here, the loop
		// did not tick.
		s = tc.since()
		ev.add("read: %v", err)
		writer.wait()
	})
	// gorilla's client, which sends a ping without reading.
	c := newGorillaClient(t, ts.url)
	expect(t, ev, "writer suspended")
	if err := c.ping("p"); err != nil {
		t.Fatal(err)
	}
	expect(t, ev, "ping")
	if _, p, err := c.read(); err != nil || !bytes.Equal(p, big) {
		t.Fatalf("client read %d bytes, %v; want %d", len(p), err, len(big))
	}
	expect(t, ev, "read: failed to get reader: failed to handle control frame opPing: failed to write control frame opPong: failed to acquire lock: context deadline exceeded")
	expect(t, ev, "big message written: <nil>")
	s.check(t, "the reader's pong", hold)
	if _, _, err := c.read(); err == nil {
		t.Errorf("client read a message; want the end of the conn")
	}
	select {
	case p := <-c.pongs:
		t.Errorf("the client got a pong %q", p)
	default:
	}
	ts.waitReturned(t, 1)
}

// TestStallsLoop's gorilla-default-pong, with the pong handed to the
// conn's one writer fiber (Example_chat's outbox and writeLoop): the ping
// handler only queues the pong, the writer sends it after the message it
// was writing, and the client gets it.
func TestGorillaPongHandedToWriter(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		big := payload(binary, bigMessage, 7)
		ts := serve(t, l, gorillaHandler(ev, func(c *gorilla.Conn) {
			out := newOutbox(l)
			c.SetPingHandler(func(p string) error {
				ev.add("ping %s", p)
				out.push(gorilla.PongMessage, []byte(p))
				return nil
			})
			c.SetCloseHandler(func(code int, _ string) error {
				out.push(gorilla.CloseMessage, gorilla.FormatCloseMessage(code, ""))
				return nil
			})
			out.push(binary, big)
			writer := startFiber(l, func() { writeLoop(c, out) })
			startFiber(l, func() { ev.add("writer suspended") })
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					break
				}
			}
			out.close()
			writer.wait()
		}))
		c := newGorillaClient(t, ts.url)
		expect(t, ev, "writer suspended")
		if err := c.ping("p"); err != nil {
			t.Fatal(err)
		}
		expect(t, ev, "ping p")
		if _, p, err := c.read(); err != nil || !bytes.Equal(p, big) {
			t.Fatalf("client read %d bytes, %v; want %d", len(p), err, len(big))
		}
		if code, err := c.closeHandshake(gorilla.CloseNormalClosure, ""); err != nil || code != gorilla.CloseNormalClosure {
			t.Errorf("close handshake: %d, %v", code, err)
		}
		if got := recv(t, c.pongs); got != "p" {
			t.Errorf("pong %q, want \"p\"", got)
		}
		ts.waitReturned(t, 1)
	})
}

// Two fibers writing one gorilla conn: gorilla allows one writer at a time,
// and catches a second one on a best-effort basis; on fibers the second
// always comes while the first is suspended mid-write, and gorilla panics.
// (A sync.Mutex around the writes, the fix on goroutines, would stop the
// loop for good instead: the first writer cannot resume while the second
// blocks the loop's goroutine on the lock.) The first message still goes
// out whole.
func TestGorillaTwoWriters(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		big := payload(binary, bigMessage, 7)
		ts := serve(t, l, gorillaHandler(ev, func(c *gorilla.Conn) {
			first := writerSuspended(l, ev, func() error { return c.WriteMessage(binary, big) })
			second := startFiber(l, func() {
				defer func() { ev.add("second writer: panic: %v", recover()) }()
				c.WriteMessage(text, []byte("second"))
			})
			first.wait()
			second.wait()
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					break
				}
			}
		}))
		c := newGorillaClient(t, ts.url)
		expect(t, ev, "writer suspended")
		expect(t, ev, "second writer: panic: concurrent write to websocket connection")
		if _, p, err := c.read(); err != nil || !bytes.Equal(p, big) {
			t.Fatalf("client read %d bytes, %v; want the first writer's %d", len(p), err, len(big))
		}
		expect(t, ev, "big message written: <nil>")
		c.closeHandshake(gorilla.CloseNormalClosure, "")
		ts.waitReturned(t, 1)
	})
}

// Two fibers writing one coder conn: the second waits for coder's write
// lock (a select on a channel) while the first is suspended mid-write, so
// the loop stops until the second's context ends, and its write fails;
// the client reads all along, but the first writer cannot go on until then.
// Through core.Await (TestCoderThroughAwait) both writes succeed.
func TestCoderTwoWriterFibers(t *testing.T) {
	const wait = 300 * time.Millisecond
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		big := payload(binary, bigMessage, 7)
		var s stall
		ts := serve(t, l, func(w http.ResponseWriter, r *http.Request) {
			c, err := coder.Accept(w, r, nil)
			if err != nil {
				ev.add("accept: %v", err)
				return
			}
			defer c.CloseNow()
			first := writerSuspended(l, ev, func() error { return c.Write(context.Background(), binary, big) })
			second := startFiber(l, func() {
				ev.add("second writer writes")
				var err error
				s = measure(l, func() {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					err = c.Write(ctx, text, []byte("second"))
				})
				ev.add("second writer: %v", err)
			})
			first.wait()
			second.wait()
			ev.add("closing: %v", c.Close(coder.StatusNormalClosure, ""))
		})
		c, ctx := dialCoder(t, ts.url, nil)
		expect(t, ev, "writer suspended")
		expect(t, ev, "second writer writes")
		if _, p, err := c.Read(ctx); err != nil || !bytes.Equal(p, big) {
			t.Fatalf("client read %d bytes, %v; want the first writer's %d", len(p), err, len(big))
		}
		expect(t, ev, "second writer: failed to write msg: failed to acquire lock: context deadline exceeded")
		expect(t, ev, "big message written: <nil>")
		s.check(t, "the second writer's Write", wait)
		// Nothing more came but the server's close.
		if _, p, err := c.Read(ctx); coder.CloseStatus(err) != coder.StatusNormalClosure {
			t.Errorf("client read %q, %v; want the server's close", p, err)
		}
		expect(t, ev, "closing: <nil>")
		ts.waitReturned(t, 1)
	})
}

// coder's Ping from a fiber while the handler's fiber reads: Ping writes
// the ping, then waits on a channel for the reader to see the pong; the
// reader cannot run while the loop is held, so Ping fails when its context
// ends, though the client answered at once. (TestPing's server-pings/coder
// makes the call through core.Await: it succeeds.)
func TestCoderPingFromFiber(t *testing.T) {
	const wait = 300 * time.Millisecond
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		var s stall
		ts := serve(t, l, func(w http.ResponseWriter, r *http.Request) {
			c, err := coder.Accept(w, r, nil)
			if err != nil {
				ev.add("accept: %v", err)
				return
			}
			defer c.CloseNow()
			pinger := startFiber(l, func() {
				var err error
				s = measure(l, func() {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					err = c.Ping(ctx)
				})
				ev.add("ping: %v", err)
				c.CloseNow() // not Close: its handshake would wait 5 s on the reader's lock
			})
			_, _, err = c.Read(context.Background())
			ev.add("read ended: %v", err != nil)
			pinger.wait()
		})
		var pings atomic.Int32
		c, ctx := dialCoder(t, ts.url, &coder.DialOptions{
			OnPingReceived: func(context.Context, []byte) bool { pings.Add(1); return true },
		})
		// The client reads (and so answers pings) until the server goes.
		if _, _, err := c.Read(ctx); err == nil {
			t.Errorf("client read a message")
		}
		expect(t, ev, "ping: failed to ping: failed to wait for pong: context deadline exceeded")
		expect(t, ev, "read ended: true")
		s.check(t, "Ping", wait)
		if pings.Load() != 1 {
			t.Errorf("the client saw %d pings, want 1", pings.Load())
		}
		ts.waitReturned(t, 1)
	})
}

// conc is how TestCoderThroughAwait and TestCoderBlocking run concurrent
// calls: start runs a function concurrently (a fiber, or a goroutine), and
// call makes one of coder's calls that may wait on another's lock (through
// core.Await from a fiber, or directly from a goroutine).
type conc struct {
	start func(f func()) (wait func())
	call  func(f func(ctx context.Context) error) error
}

// coderSafeHandler is the unsafe cases' handler made safe by c: a reader,
// two writers started while the client does not read (the second waits on
// the first's lock), the client's ping answered by the reader meanwhile,
// then the server's Ping and a close handshake started by the server while
// the reader still reads.
func coderSafeHandler(ev events, big []byte, run func(r *http.Request) conc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := coder.Accept(w, r, nil)
		if err != nil {
			ev.add("accept: %v", err)
			return
		}
		defer c.CloseNow()
		x := run(r)
		reader := x.start(func() {
			for {
				var err error
				x.call(func(ctx context.Context) error { _, _, err = c.Read(ctx); return err })
				if err != nil {
					ev.add("read ended: close %d", coder.CloseStatus(err))
					return
				}
			}
		})
		first := x.start(func() {
			ev.add("first: %v", x.call(func(ctx context.Context) error { return c.Write(ctx, binary, big) }))
		})
		second := x.start(func() {
			ev.add("second: %v", x.call(func(ctx context.Context) error { return c.Write(ctx, text, []byte("second")) }))
		})
		ev.add("writing")
		first()
		second()
		ev.add("ping: %v", x.call(func(ctx context.Context) error { return c.Ping(ctx) }))
		ev.add("close: %v", x.call(func(context.Context) error { return c.Close(4000, "bye") }))
		reader()
	}
}

// checkCoderSafe is the client's side of coderSafeHandler (gorilla's
// client, which pings without reading): every call succeeds.
func checkCoderSafe(t *testing.T, ts *wsServer, ev events, big []byte) {
	t.Helper()
	c := newGorillaClient(t, ts.url)
	expect(t, ev, "writing")
	if err := c.ping("p"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		_, p, err := c.read()
		if err != nil {
			if code, reason := closeOf(err); code != 4000 || reason != "bye" {
				t.Errorf("client's read ended with %v; want the server's close 4000 \"bye\"", err)
			}
			break
		}
		got = append(got, fmt.Sprint(len(p)))
	}
	// The two writers take the lock in either order.
	if g := strings.Join(got, " "); g != fmt.Sprint(len(big), " 6") && g != fmt.Sprint("6 ", len(big)) {
		t.Errorf("client got messages of %s bytes; want %d and 6", g, len(big))
	}
	if p := recv(t, c.pongs); p != "p" {
		t.Errorf("pong %q", p)
	}
	var evs []string
	for range 5 {
		evs = append(evs, recv(t, ev))
	}
	for _, want := range []string{"first: <nil>", "second: <nil>", "ping: <nil>", "close: <nil>", "read ended: close 4000"} {
		if !strings.Contains(strings.Join(evs, "\n"), want) {
			t.Errorf("server: %q; want %q among them", evs, want)
		}
	}
	ts.waitReturned(t, 1)
}

// The unsafe cases of coder made safe: every call that may wait on another
// call's lock is made through core.Await, so a goroutine waits on the lock
// and the fiber suspends. The handler's fibers read, write twice at once,
// answer the client's ping while the writers are suspended, Ping the
// client and start the close handshake while the reader reads: all
// succeed.
func TestCoderThroughAwait(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		big := payload(binary, bigMessage, 7)
		ts := serve(t, l, coderSafeHandler(ev, big, func(*http.Request) conc {
			return conc{
				start: func(f func()) func() { return startFiber(l, f).wait },
				call: func(f func(ctx context.Context) error) error {
					_, err := core.Await(l, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
					return err
				},
			}
		}))
		checkCoderSafe(t, ts, ev, big)
	})
}

// The same handler served with httpserver.Blocking, as it would be written
// for net/http: goroutines, and coder's calls made directly. The conn is
// still the loop's socket, used from goroutines.
func TestCoderBlocking(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ev := newEvents()
		big := payload(binary, bigMessage, 7)
		ts := serve(t, l, httpserver.Blocking(coderSafeHandler(ev, big, func(*http.Request) conc {
			return conc{
				start: func(f func()) func() {
					var wg sync.WaitGroup
					wg.Go(f)
					return wg.Wait
				},
				call: func(f func(ctx context.Context) error) error { return f(context.Background()) },
			}
		})).ServeHTTP)
		checkCoderSafe(t, ts, ev, big)
	})
}

// gorillaHandler upgrades with gorilla's upgrader, reports a failed
// upgrade to ev, and runs f on the conn, closed when f returns.
func gorillaHandler(ev events, f func(c *gorilla.Conn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			ev.add("upgrade: %v", err)
			return
		}
		defer c.Close()
		f(c)
	}
}
