package websocket

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// process reads the frames at the start of in and returns how many bytes
// it consumed: whole frames; a frame not whole yet is left for the next
// bytes. Payloads are unmasked in place. On the loop, in a fiber.
func (c *Conn) process(in []byte) int {
	c.active = true
	pos := 0
	for !c.ending && pos < len(in) {
		h, n, err := parseHeader(in[pos:])
		if err == nil && n > 0 {
			err = c.check(h)
		}
		if err != nil {
			c.fail(err)
			break
		}
		if n == 0 || int64(len(in)-pos-n) < h.length {
			return pos
		}
		p := in[pos+n : pos+n+int(h.length)]
		pos += n + int(h.length)
		if h.masked {
			mask(h.key, 0, p)
		}
		if err := c.frame(h, p); err != nil {
			c.fail(err)
		}
	}
	if c.ending {
		return len(in) // after a close frame, or a failure, nothing more is read
	}
	return pos
}

// check applies the rules of RFC 6455 5 (and RFC 7692 6) that a frame's
// header alone shows, before its payload is waited for.
func (c *Conn) check(h header) *CloseError {
	var allowed byte
	if c.pmd.on && (h.op == opText || h.op == opBinary) {
		allowed = rsv1 // only on a message's first frame (RFC 7692 6.1)
	}
	switch {
	case h.rsv&^allowed != 0:
		return closeErr(CloseProtocolError, fmt.Sprintf("reserved bits %03b set in a frame (opcode %d)", h.rsv, h.op))
	case !h.op.known():
		return closeErr(CloseProtocolError, fmt.Sprintf("reserved opcode %d", h.op))
	case !c.client && !h.masked:
		return closeErr(CloseProtocolError, "an unmasked frame from a client (RFC 6455 5.1)")
	case c.client && h.masked:
		return closeErr(CloseProtocolError, "a masked frame from a server (RFC 6455 5.1)")
	}
	if h.op.control() {
		switch {
		case !h.fin:
			return closeErr(CloseProtocolError, "a fragmented control frame (RFC 6455 5.5)")
		case h.length > maxControlPayload:
			return closeErr(CloseProtocolError, fmt.Sprintf("a control frame of %d bytes, over 125 (RFC 6455 5.5)", h.length))
		}
		return nil
	}
	switch {
	case h.op == opContinuation && c.msgOp == 0:
		return closeErr(CloseProtocolError, "a continuation frame with no message to continue")
	case h.op != opContinuation && c.msgOp != 0:
		return closeErr(CloseProtocolError, "a new message while a fragmented one is under way")
	}
	maxFrame, maxMsg := int64(c.opts.maxFrame()), int64(c.opts.maxMessage())
	if h.rsv&rsv1 != 0 || h.op == opContinuation && c.msgDeflate {
		// A compressed message is bounded once inflated; on the wire, an
		// incompressible one may be a little larger than it is (stored
		// blocks: 5 bytes per 64 KiB).
		maxFrame, maxMsg = maxFrame+maxFrame/256+64, maxMsg+maxMsg/256+64
	}
	switch {
	case h.length > maxFrame:
		return closeErr(CloseTooBig, fmt.Sprintf("a frame of %d bytes, over the limit of %d", h.length, maxFrame))
	case int64(len(c.msg))+h.length > maxMsg:
		return closeErr(CloseTooBig, fmt.Sprintf("a message of over %d bytes", maxMsg))
	}
	return nil
}

// frame acts on a whole frame whose header passed check.
func (c *Conn) frame(h header, p []byte) *CloseError {
	switch h.op {
	case opPing:
		c.control(opPong, p)
		return nil
	case opPong:
		return nil
	case opClose:
		code, reason, err := parseClose(p)
		if err != nil {
			return err
		}
		c.peerClosed(code, reason)
		return nil
	}
	if h.op != opContinuation {
		c.msgOp, c.msgDeflate, c.utf8Done = h.op, h.rsv&rsv1 != 0, 0
		if h.fin {
			return c.deliver(p)
		}
	}
	c.msg = append(c.msg, p...)
	if c.msgOp == opText && !c.msgDeflate {
		// Checked as it comes (RFC 6455 8.1): a sequence cut by a fragment
		// boundary waits for the next fragment.
		n, ok := validUTF8Prefix(c.msg[c.utf8Done:])
		if !ok {
			return closeErr(CloseInvalidPayload, "invalid UTF-8 in a text message")
		}
		c.utf8Done += n
	}
	if !h.fin {
		return nil
	}
	msg := c.msg
	err := c.deliver(msg)
	c.msg = nil
	return err
}

// inflated holds the buffers of inflated messages between uses: a
// message's is the handler's until it returns.
var inflated = sync.Pool{New: func() any { return new([]byte) }}

// deliver hands a whole message to OnMessage, inflated and checked.
func (c *Conn) deliver(p []byte) *CloseError {
	op, compressed := c.msgOp, c.msgDeflate
	c.msgOp, c.msgDeflate = 0, false
	if compressed {
		buf := inflated.Get().(*[]byte)
		defer inflated.Put(buf)
		var dict []byte
		if c.pmd.inTakeover {
			dict = c.tk.hist
		}
		out, err := inflate((*buf)[:0], p, dict, c.opts.maxMessage())
		*buf = out
		if err != nil {
			return err
		}
		if c.pmd.inTakeover {
			if c.tk.hist == nil {
				c.tk.hist = make([]byte, 0, windowSize)
			}
			c.tk.hist = keepWindow(c.tk.hist, out)
		}
		p = out
	}
	if op == opText && !utf8.Valid(p) {
		return closeErr(CloseInvalidPayload, "invalid UTF-8 in a text message")
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing || c.opts.OnMessage == nil {
		return nil // after our close frame, data is dropped (RFC 6455 1.4)
	}
	c.opts.OnMessage(c, MessageType(op), p)
	return nil
}

// fail fails the conn (RFC 6455 7.1.7): a close frame with err's code,
// then the TCP conn is closed; nothing more is read.
func (c *Conn) fail(err *CloseError) {
	c.ending = true
	c.setCloseErr(err)
	c.sendClose(err.Code, err.Reason, true)
	c.shutdownWhenFlushed()
}

// peerClosed answers the peer's close frame: with ours, echoing its code
// (RFC 6455 5.5.1), unless ours went first; then the TCP conn is closed.
func (c *Conn) peerClosed(code int, reason string) {
	c.ending = true
	c.setCloseErr(&CloseError{Code: code, Reason: reason, Remote: true})
	c.sendClose(code, "", false)
	c.shutdownWhenFlushed()
}
