package httpserver

import "bytes"

// Responses to requests that came together leave together. A finished
// response stays in the write buffer while the read buffer holds the
// whole header of the next request, whose response will join it; the
// buffer goes to the kernel once the batch ends (the last response has
// no next request buffered), when it fills, when a handler flushes, or
// when the conn's fiber suspends before the batch ends (a slow handler,
// a body still on its way): a microtask queued when the first response
// was held runs then, and sends what is held, so that a response that
// is ready never waits for a slow one. Sixteen pipelined requests cost
// one write instead of sixteen.

// holdForBatch holds the response just finished in the write buffer if
// the next request is already here, and says whether it did. Not held:
// a response after which the conn closes or reads on in this request's
// body (the client may wait for the response before it sends the rest),
// and any once the loop is closing.
func (w *response) holdForBatch() bool {
	c := w.c
	if b := w.body; b != nil && !b.sawEOF || !w.shouldReuseConnection() || !c.srv.keepAlives() ||
		!c.nextRequestBuffered() || c.ls.l.IsClosed() {
		return false
	}
	c.heldTo = c.cw.n + int64(c.bw.Buffered())
	if !c.flushQueued {
		c.flushQueued = true
		c.ls.l.Queue(c.flushHeldFn)
	}
	return true
}

// nextRequestBuffered reports whether the read buffer holds the end of
// a header (an empty line), which the next request needs before its
// handler can run.
func (c *conn) nextRequestBuffered() bool {
	if c.br == nil || c.br.Buffered() == 0 {
		return false
	}
	b, _ := c.br.Peek(c.br.Buffered())
	return headerEnds(b)
}

// headerEnds reports whether b holds an empty line after a line feed:
// CRLF CRLF, or LF LF and the mixes net/http's parser takes too.
func headerEnds(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		b = b[i+1:]
		if len(b) > 0 && b[0] == '\n' || len(b) > 1 && b[0] == '\r' && b[1] == '\n' {
			return true
		}
	}
}

// flushHeld is the microtask of a batch: it runs after the conn's fiber
// returns (the batch is served, nothing is held any more) or suspends.
// Then it sends what is held, with what the write buffer holds of the
// response under way, unless a write of the conn is under way already,
// which carries it. The write buffer is handed over whole, so that the
// fiber, once resumed, writes into a fresh one behind it (the socket's
// write lock keeps the two in order), and flushHeld suspends alone.
// While its send waits for the peer, the fiber may hold more responses,
// whose own microtask then finds this send under way: so it sends again
// until nothing is held, or a send fails.
func (c *conn) flushHeld() {
	c.flushQueued = false
	for !c.ended && !c.hijacked && c.writing == 0 && c.bw != nil && c.bw.Buffered() > 0 && c.cw.n < c.heldTo {
		held := c.bw
		c.bw = c.ls.getWriter(&c.cw)
		err := held.Flush()
		c.ls.putWriter(held)
		if err != nil {
			return
		}
	}
}

// dropUnheld discards what the write buffer holds of the response under
// way, and keeps the responses held before it (the buffer holds those
// first), which a panicking handler's 500 must follow. No write may be
// under way.
func (c *conn) dropUnheld() {
	held := c.heldTo - c.cw.n
	if held <= 0 {
		c.bw.Reset(&c.cw)
		return
	}
	var b []byte
	c.cw.keep = &b
	c.bw.Flush()
	c.cw.keep = nil
	c.bw.Reset(&c.cw)
	c.bw.Write(b[:min(held, int64(len(b)))])
}
