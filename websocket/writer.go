package websocket

import (
	"compress/flate"
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
// Each Write of one byte or more queues one frame of what it got (a
// copy; wrap the writer in a bufio.Writer for many small writes), and
// Close queues the last. Like WriteMessage, neither waits: both fail with
// ErrQueueFull past Options.MaxQueuedBytes (the conn then closes with
// 1008) and with ErrClosed once the conn has failed or ended. NextWriter
// itself fails with ErrClosed once the conn is closing.
//
// While the writer is open, the conn's other messages (WriteMessage,
// WritePrepared, Broadcast) and the close frame of a Close, ours or the
// answer to the peer's, wait behind it, in the order they came, and go
// once it is closed; pings and pongs go between its fragments, and the
// writer may finish its message after a Close (RFC 6455 5.5.1). So close
// it: an open writer holds the conn's messages back, and a Close then
// ends the conn only at Options.CloseTimeout. One writer at a time:
// NextWriter returns ErrWriterOpen while one is open.
//
// On a conn that compresses, the message is compressed as it goes, each
// Write's part flushed into its frame (RFC 7692 7.2.1); where the peer
// asked for a window smaller than compress/flate's 32 KiB, it goes
// uncompressed (compresses). With context takeover, the conn's whole
// messages sent while the writer is open go uncompressed, as the
// compressor's window must follow the order of the messages. The writer
// belongs to the goroutine or fiber that writes it; the conn stays safe
// from any other.
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
	switch {
	case !c.pmd.on || c.pmd.outBits < 15:
	case c.pmd.outTakeover:
		w.defl = &c.tk.defl
	default:
		w.defl, w.own = &deflater{level: c.opts.level()}, true
	}
	c.writer = w
	return w, nil
}

// messageWriter is NextWriter's: op is its next frame's opcode, the
// message's type for the first and continuation after.
type messageWriter struct {
	c  *Conn
	op opcode
	// With compression: the compressor (the conn's with context
	// takeover, else the writer's own, from the pool), and whether the
	// sync flush's tail, cut from the last part, belongs before the next.
	defl *deflater
	own  bool
	tail bool
}

func (w *messageWriter) Write(p []byte) (int, error) {
	c := w.c
	if len(p) == 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		return 0, w.state()
	}
	var f []byte
	if w.own {
		f = w.compressedFrame(p)
	} else if w.defl == nil {
		f = w.frame(p, false)
	}
	c.mu.Lock()
	if err := w.state(); err != nil {
		c.mu.Unlock()
		w.release()
		return 0, err
	}
	if f == nil {
		f = w.compressedFrame(p) // the conn's compressor, under c.mu
	}
	if err := c.enqueueLocked(f, sendFragment); err != nil {
		w.release()
		return 0, err
	}
	w.op = opContinuation
	return len(p), nil
}

// frame encodes a frame of w's message that is not its last.
func (w *messageWriter) frame(p []byte, compressed bool) []byte {
	f := w.c.encode(w.op, p)
	f[0] &^= 0x80
	if compressed && w.op != opContinuation {
		f[0] |= rsv1 << 4 // the first frame says so for the message
	}
	return f
}

// compressedFrame compresses p as the next part of w's message.
func (w *messageWriter) compressedFrame(p []byte) []byte {
	var part []byte
	if w.tail {
		part = append(part, deflateTail...)
	}
	part = w.defl.compress(part, p, true)
	w.tail = true
	return w.frame(part, true)
}

// Close queues the message's last frame, and behind it what waited. The
// sync flush's tail of the last part is left out (RFC 7692 7.2.1).
func (w *messageWriter) Close() error {
	c := w.c
	w.release()
	f := c.encode(w.op, nil)
	c.mu.Lock()
	if err := w.state(); err != nil {
		c.mu.Unlock()
		return err
	}
	return c.enqueueLocked(f, sendLast)
}

// release gives the writer's own compressor back to the pool.
func (w *messageWriter) release() {
	if w.own && w.defl.w != nil {
		writerPools[w.defl.level-flate.HuffmanOnly].Put(w.defl.w)
		w.defl.w = nil
	}
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
