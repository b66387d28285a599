package socket

import "syscall"

// Handler serves the bytes that a served conn receives (Conn.Serve,
// Listener.Serve). It runs on the conn's loop, in a fiber, each time bytes
// arrive: in holds the bytes it left last time followed by the new ones,
// and it returns how many of them it consumed, from the start (0 to
// len(in)); the rest is kept and handed to it again, ahead of the next
// bytes, when they arrive. It may suspend (a Write to a full socket, a
// timer, a call through package httpclient): it keeps its fiber meanwhile,
// the loop serves other conns, and the conn's next bytes wait in the
// kernel until it returns, so its runs never overlap and see the bytes in
// order.
//
// in is valid until the Handler returns: it is part of a buffer the loop
// lends to this run. Copy what must outlive the run. What it leaves is
// kept whole, however much: a Handler that waits for a long message
// bounds it itself (closes c past its limit), as bufio.Scanner bounds a
// token.
//
// It is called last, once, with a non-nil err: io.EOF at the end of the
// stream, or the error a Read would have returned (a *net.OpError: a
// reset, the read deadline passed, the conn closed by Close, or by the
// loop's Close, an error that matches net.ErrClosed and
// core.ErrLoopClosed). in then holds the bytes it left, the result is
// ignored, and the conn is closed once it returns. A Handler that panics
// is not called again: the conn is closed, and the panic goes where the
// panics of the loop's callbacks go (the loop's error handler, or Run's
// result, as a *core.UncaughtError).
type Handler func(c *Conn, in []byte, err error) (consumed int)

// Serve serves c with h: from now on h runs when bytes arrive (see
// Handler), and between runs c waits holding no fiber and no read buffer,
// only the bytes h left, if any. It returns at once; c is read right
// after, as a microtask, before it ever waits on the loop's driver, so
// bytes that came with c (a request sent right behind the handshake) are
// served without a wait. A served conn keeps its loop's Run going, as a
// Read that waits does.
//
// A Write from h is c's ordinary Write: if the socket is full, h's fiber
// suspends until it drains, and c is not read meanwhile, so a peer that
// sends without reading the answers is held back by TCP, not by memory.
// A Read from h reads the bytes that come after in; once c is no longer
// served (StopServing), a Read first returns the bytes h left. c must be
// a stream (TCP or Unix). It may be called from any goroutine; the error
// is one of c's (c closed, or a datagram socket), or c is served already.
func (c *Conn) Serve(h Handler) error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if h == nil {
		panic("socket: Conn.Serve called with a nil Handler")
	}
	if err := c.fd.serve(c, h); err != nil {
		return c.fd.opError("serve", err)
	}
	return nil
}

// StopServing ends the serving of c: its Handler is not called again, not
// even with a final error, and c stays open for its caller, whose next
// Read returns the bytes the Handler left first. Called from the Handler,
// it takes effect when the Handler returns; elsewhere at once (from
// another goroutine it waits for the loop). It reports whether c was
// served.
func (c *Conn) StopServing() bool {
	if !c.ok() {
		return false
	}
	return c.fd.stopServing()
}

// Serve accepts connections on ln and serves each with h (Conn.Serve)
// until Accept fails, and returns that error, as net/http's Serve does: an
// error wrapping net.ErrClosed once ln is closed. Out of descriptors, it
// goes on (the listener holds its next accept back by itself). From a
// fiber it suspends that one fiber while it waits for connections; the
// connections hold none.
func (ln *Listener) Serve(h Handler) error {
	if !ln.ok() {
		return syscall.EINVAL
	}
	if h == nil {
		panic("socket: Listener.Serve called with a nil Handler")
	}
	for {
		c, err := ln.AcceptConn()
		if err != nil {
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				continue
			}
			return err
		}
		if err := c.Serve(h); err != nil {
			c.Close()
			return err
		}
	}
}
