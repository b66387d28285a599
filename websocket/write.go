package websocket

import (
	"crypto/rand"
	"fmt"
	"sync"

	"github.com/revoltgo/eventloop/core"
)

// encode makes a final frame of p: masked with a fresh key by a client
// (RFC 6455 5.3), as it is by a server.
func (c *Conn) encode(op opcode, p []byte) []byte {
	b := make([]byte, 0, headerSize(len(p), c.client)+len(p))
	return c.appendFrame(b, op, false, p)
}

func (c *Conn) appendFrame(b []byte, op opcode, compressed bool, p []byte) []byte {
	if !c.client {
		b = appendHeader(b, op, compressed, len(p), nil)
		return append(b, p...)
	}
	var key [4]byte
	rand.Read(key[:])
	b = appendHeader(b, op, compressed, len(p), &key)
	start := len(b)
	b = append(b, p...)
	mask(key, 0, b[start:])
	return b
}

// compressFrame makes a final frame of p compressed: compressed where the
// header will go is known only afterwards, so the header is written
// right before the payload, in room left for the largest.
func (c *Conn) compressFrame(op opcode, p []byte, d *deflater, takeover bool) []byte {
	b := make([]byte, maxHeaderSize, maxHeaderSize+len(p)/2+64)
	b = d.compress(b, p, takeover)
	n := len(b) - maxHeaderSize
	hs := headerSize(n, c.client)
	var key *[4]byte
	if c.client {
		key = new([4]byte)
		rand.Read(key[:])
		mask(*key, 0, b[maxHeaderSize:])
	}
	appendHeader(b[maxHeaderSize-hs:maxHeaderSize-hs], op, true, n, key)
	return b[maxHeaderSize-hs:]
}

// WriteMessage queues p as one message of type typ (compressed if the
// conn negotiated it) and returns at once: p is copied. It is safe from
// any fiber or goroutine, and messages queued from one go in order. It
// fails with ErrClosed once the conn is closing, and with ErrQueueFull
// (closing the conn with ClosePolicyViolation) past MaxQueuedBytes.
func (c *Conn) WriteMessage(typ MessageType, p []byte) error {
	if typ != Text && typ != Binary {
		panic(fmt.Sprintf("websocket: WriteMessage with %v: a message is Text or Binary", typ))
	}
	op := opcode(typ)
	if !c.pmd.compresses(len(p)) {
		return c.enqueueFrame(op, p, sendData)
	}
	if c.pmd.outTakeover {
		// The compressor's window follows the order of the messages, so
		// compressing and queueing are one step.
		c.mu.Lock()
		if c.tk == nil { // finish dropped it: the conn is closed
			c.mu.Unlock()
			return ErrClosed
		}
		if c.writer != nil {
			// It waits behind the writer's message, which the
			// compressor has not seen the end of: it goes as it is.
			return c.enqueueLocked(c.encode(op, p), sendData)
		}
		f := c.compressFrame(op, p, &c.tk.defl, true)
		return c.enqueueLocked(f, sendData)
	}
	d := deflater{level: c.opts.level()}
	return c.enqueue(c.compressFrame(op, p, &d, false), sendData)
}

// Ping queues a ping with payload p (at most 125 bytes); the peer's pong
// comes back as activity, which Options.PingInterval watches.
func (c *Conn) Ping(p []byte) error {
	if len(p) > maxControlPayload {
		return fmt.Errorf("websocket: a ping of %d bytes; a control frame carries at most 125", len(p))
	}
	return c.enqueueFrame(opPing, p, sendControl)
}

// Close starts the close handshake (RFC 6455 7.1.2): it queues a close
// frame with code and reason (cut to fit a control frame) behind the
// messages queued before it; the TCP conn is closed when the peer's close
// frame comes, or after Options.CloseTimeout. OnClose then gets code and
// reason. Safe from any fiber or goroutine; ErrClosed if the conn is
// closing already.
func (c *Conn) Close(code int, reason string) error {
	if !validCloseCode(code) {
		return fmt.Errorf("websocket: Close with code %d, which may not be sent (RFC 6455 7.4)", code)
	}
	c.setCloseErr(&CloseError{Code: code, Reason: reason})
	if !c.sendClose(code, reason, false) {
		return ErrClosed
	}
	return nil
}

// CloseNow closes the TCP conn without a close handshake; OnClose gets
// CloseAbnormal. Safe from any fiber or goroutine.
func (c *Conn) CloseNow() error {
	c.setCloseErr(&CloseError{Code: CloseAbnormal, Reason: "closed by CloseNow"})
	return c.nc.Close()
}

// control queues a control frame. A pong replaces one queued and not
// yet written: a peer that pings faster than it reads gets an answer to
// its last ping (RFC 6455 5.5.3), and costs one frame of memory.
func (c *Conn) control(op opcode, p []byte) {
	f := c.encode(op, p)
	if op == opPong {
		c.mu.Lock()
		if c.pongAt > 0 && !c.closing {
			c.replacePong(f)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
	c.enqueue(f, sendControl)
}

// sendClose queues a close frame, and reports whether this call did (one
// goes per conn). drop discards the frames queued and not yet taken by
// the writer: a conn that fails sends its close frame next. The frame is
// given CloseTimeout to go out, and, if this side closed first, the
// peer's to come.
func (c *Conn) sendClose(code int, reason string, drop bool) bool {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return false
	}
	if drop {
		if q := c.out; q != nil {
			c.queued -= len(q.bytes())
			q.b, q.shared = q.b[:0], nil
		}
		for _, f := range c.held {
			c.queued -= len(f)
		}
		c.pongAt, c.held, c.writer = 0, nil, nil
	}
	c.enqueueLocked(c.encode(opClose, closePayload(code, reason)), sendCloseFrame)
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.onLoop(func() {
		if c.closeTimer == 0 && !c.ended {
			c.closeTimer = c.l.Delay(c.opts.closeTimeout(), c.closeTimedOut)
		}
	})
	return true
}

func (c *Conn) closeTimedOut(core.CallbackID) {
	c.setCloseErr(&CloseError{Code: CloseAbnormal, Reason: fmt.Sprintf("the close handshake took over %v", c.opts.closeTimeout())})
	c.nc.Close()
}

// shutdownWhenFlushed closes the TCP conn once what is queued is written,
// an open message writer's message and what waits behind it included
// (RFC 6455 5.5.1 lets the close frame wait for the message under way).
func (c *Conn) shutdownWhenFlushed() {
	c.mu.Lock()
	c.shutdown = true
	now := !c.flushing && c.writer == nil
	c.mu.Unlock()
	if now {
		c.nc.Close()
	}
}

func (c *Conn) enqueue(f []byte, kind sendKind) error {
	c.mu.Lock()
	return c.enqueueLocked(f, kind)
}

// sendKind is what a queued frame is to the queue.
type sendKind uint8

const (
	sendData       sendKind = iota // a whole message's frame
	sendControl                    // a ping or a pong: it may go between fragments
	sendCloseFrame                 // the close frame: behind everything queued before it
	sendFragment                   // an open message writer's frame
	sendLast                       // its last: what waited behind it follows
)

// enqueueLocked queues f, c.mu held, and unlocks it. While a message
// writer is open, whole messages and the close frame wait behind it in
// held. Control frames are not counted against the limit: a conn has at
// most one pong and one close queued. A whole message that finds nothing
// queued is held as it is, not copied: a broadcast's frame, shared by many
// conns, costs each of them no copy of its own.
func (c *Conn) enqueueLocked(f []byte, kind sendKind) error {
	if err := c.admit(len(f), kind); err != nil {
		return err
	}
	switch {
	case c.writer != nil && (kind == sendData || kind == sendCloseFrame):
		c.held = append(c.held, f)
		c.mu.Unlock()
		return nil
	case kind == sendData && c.out == nil:
		c.out = pendingPool.Get().(*pending)
		c.out.shared = f
	case kind == sendLast:
		q := c.queue()
		q.b = append(q.b, f...)
		for _, h := range c.held {
			q.b = append(q.b, h...)
		}
		c.writer, c.held = nil, nil
	default:
		q := c.queue()
		if f[0]&0xf == byte(opPong) {
			c.pongAt = len(q.b) + 1
		}
		q.b = append(q.b, f...)
	}
	return c.startFlush()
}

// enqueueFrame queues op's final frame of p, as enqueue does, encoding it
// straight into the conn's pending bytes: a message costs no frame of its
// own unless it waits behind a message writer.
func (c *Conn) enqueueFrame(op opcode, p []byte, kind sendKind) error {
	c.mu.Lock()
	if c.writer != nil && (kind == sendData || kind == sendCloseFrame) {
		return c.enqueueLocked(c.encode(op, p), kind)
	}
	if err := c.admit(headerSize(len(p), c.client)+len(p), kind); err != nil {
		return err
	}
	q := c.queue()
	q.b = c.appendFrame(q.b, op, false, p)
	return c.startFlush()
}

// admit counts n more bytes queued, c.mu held; if the conn is closing, or
// its queue would pass the limit (then it closes with 1008), it unlocks
// c.mu and says so.
func (c *Conn) admit(n int, kind sendKind) error {
	if c.closing && kind < sendFragment {
		c.mu.Unlock()
		return ErrClosed
	}
	if (kind == sendData || kind >= sendFragment) && c.queued+n > c.opts.maxQueued() {
		c.mu.Unlock()
		c.setCloseErr(closeErr(ClosePolicyViolation, fmt.Sprintf("more than %d bytes waited to be written", c.opts.maxQueued())))
		c.sendClose(ClosePolicyViolation, "write queue full", true)
		return ErrQueueFull
	}
	c.queued += n
	return nil
}

// startFlush schedules a flush unless one is scheduled or runs, c.mu
// held, and unlocks it.
func (c *Conn) startFlush() error {
	start := !c.flushing
	c.flushing = true
	c.mu.Unlock()
	if start {
		if c.l.InFiber() {
			c.l.Queue(c.flushFn)
		} else if c.l.Post(c.flushFn) != nil {
			c.mu.Lock()
			c.flushing = false
			c.mu.Unlock()
			return ErrClosed
		}
	}
	return nil
}

// pending is a conn's frames queued and not yet taken by a flush, one
// after the other, so that a flush writes them in one call. It comes from
// a pool with the first frame and goes back once written: an idle conn
// holds none. shared, if set, is the whole queue: a frame held as it is
// (enqueueLocked); b is then empty.
type pending struct {
	b      []byte
	shared []byte
}

var pendingPool = sync.Pool{New: func() any { return new(pending) }}

// maxPooled is the largest buffer the pool keeps: one that a burst made
// larger goes to the collector.
const maxPooled = 64 << 10

func (q *pending) bytes() []byte {
	if q.shared != nil {
		return q.shared
	}
	return q.b
}

func (q *pending) release() {
	if cap(q.b) > maxPooled {
		q.b = nil
	}
	q.b, q.shared = q.b[:0], nil
	pendingPool.Put(q)
}

// queue returns the conn's pending bytes for a frame to be appended to,
// c.mu held: a frame held as it is is copied in first.
func (c *Conn) queue() *pending {
	q := c.out
	if q == nil {
		q = pendingPool.Get().(*pending)
		c.out = q
	} else if q.shared != nil {
		q.b = append(q.b[:0], q.shared...)
		q.shared = nil
	}
	return q
}

// replacePong puts the pong frame f in place of the one queued at pongAt,
// c.mu held.
func (c *Conn) replacePong(f []byte) {
	q, at := c.out, c.pongAt-1
	n := 2 + int(q.b[at+1]&0x7f) // a control frame has no extended length
	if q.b[at+1]&0x80 != 0 {
		n += 4 // its masking key
	}
	c.queued += len(f) - n
	if len(f) == n {
		copy(q.b[at:], f)
		return
	}
	q.b = append(q.b[:at], q.b[at+n:]...)
	c.pongAt = len(q.b) + 1
	q.b = append(q.b, f...)
}

// flush writes the queued frames, all that are queued in one write, until
// none is left; in a fiber of the loop, which it holds only while the
// socket is full. Then it closes the TCP conn if that is due.
func (c *Conn) flush() {
	for {
		c.mu.Lock()
		q := c.out
		c.out, c.pongAt = nil, 0
		if q == nil {
			c.flushing = false
			shut := c.shutdown && c.writer == nil
			c.mu.Unlock()
			if shut {
				c.nc.Close()
			}
			return
		}
		c.mu.Unlock()
		b := q.bytes()
		n := len(b)
		var err error
		if n > 0 {
			_, err = c.nc.Write(b)
		}
		q.release()
		c.mu.Lock()
		c.queued -= n
		if err != nil {
			c.dropOut()
			c.flushing, c.closing = false, true
		}
		c.mu.Unlock()
		if err != nil {
			c.setCloseErr(&CloseError{Code: CloseAbnormal, Err: err})
			c.nc.Close() // the read side reports it
			return
		}
	}
}

// dropOut gives what is queued back to the pool unwritten, c.mu held.
func (c *Conn) dropOut() {
	if c.out != nil {
		c.out.release()
		c.out = nil
	}
	c.pongAt = 0
}
