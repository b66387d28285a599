package websocket

import (
	"errors"
	"fmt"
	"io"
)

// ErrWriterOpen is what NextWriter returns while the conn's last message
// writer is not closed yet: a message's fragments may not be interleaved
// with another message's (RFC 6455 5.4).
var ErrWriterOpen = errors.New("websocket: NextWriter while the conn's last message writer is open; Close it first")

// errWriterClosed is what a message writer's Write and Close return once
// it is closed.
var errWriterClosed = errors.New("websocket: Write or Close on a message writer that is closed")

// NextWriter starts a message of type typ sent in fragments (RFC 6455
// 5.4), for a message too large to hold whole or not known whole yet.
// Each Write queues one frame holding a copy of what it got (wrap the
// writer in a bufio.Writer for many small writes) and Close queues the
// last; like WriteMessage, neither waits, and both fail with ErrClosed
// once the conn is closing and ErrQueueFull past Options.MaxQueuedBytes.
//
// While the writer is open, the conn's other messages (WriteMessage,
// WritePrepared, Broadcast) and a Close's close frame wait behind it, in
// the order they came, and go once it is closed; pings and pongs go
// between its fragments. So close it: an open writer holds the conn's
// messages back, and a Close then ends the conn only at
// Options.CloseTimeout. One writer at a time: NextWriter returns
// ErrWriterOpen while one is open.
//
// A message sent in fragments is sent uncompressed, on a conn that
// compresses too (RFC 7692 lets any message go so). The writer belongs
// to the goroutine or fiber that writes it; the conn stays safe from any
// other.
func (c *Conn) NextWriter(typ MessageType) (io.WriteCloser, error) {
	if typ != Text && typ != Binary {
		panic(fmt.Sprintf("websocket: NextWriter with %v: a message is Text or Binary", typ))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closing:
		return nil, ErrClosed
	case c.writer != nil:
		return nil, ErrWriterOpen
	}
	w := &messageWriter{c: c, op: opcode(typ)}
	c.writer = w
	return w, nil
}

// messageWriter is NextWriter's: op is its next frame's opcode, the
// message's type for the first and continuation after.
type messageWriter struct {
	c  *Conn
	op opcode
}

func (w *messageWriter) Write(p []byte) (int, error) {
	c := w.c
	if len(p) == 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		return 0, w.state()
	}
	f := c.encode(w.op, p)
	f[0] &^= 0x80 // not the last
	c.mu.Lock()
	if err := w.state(); err != nil {
		c.mu.Unlock()
		return 0, err
	}
	if err := c.enqueueLocked(f, sendFragment); err != nil {
		return 0, err
	}
	w.op = opContinuation
	return len(p), nil
}

// Close queues the message's last frame, and behind it what waited.
func (w *messageWriter) Close() error {
	c := w.c
	f := c.encode(w.op, nil)
	c.mu.Lock()
	if err := w.state(); err != nil {
		c.mu.Unlock()
		return err
	}
	return c.enqueueLocked(f, sendLast)
}

// state says why w may not send, c.mu held: closed by its Close, or by
// the conn's failing (which drops what it queued).
func (w *messageWriter) state() error {
	if w.c.writer == w {
		return nil
	}
	if w.c.closing {
		return ErrClosed
	}
	return errWriterClosed
}
