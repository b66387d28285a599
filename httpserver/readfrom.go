package httpserver

import (
	"io"
	"net/http"
	"sync"
)

var _ io.ReaderFrom = (*response)(nil)

// ReadFrom implements io.ReaderFrom, as net/http's ResponseWriter does,
// for io.Copy and http.ServeContent (so http.FileServer): the first 512
// bytes go through Write, which decides the header (Content-Type sniffing,
// Content-Length or chunking) and lets a source that fails at once fail
// before anything is sent; then the header goes out, and the rest of a
// body sent unchunked goes to the socket's ReadFrom, which sends a file
// with sendfile(2) where the system has it (see socket.Conn.ReadFrom).
// A chunked body, HEAD, a source limited to 16 KiB or less (a small file
// from ServeContent: copied, it leaves with the header in one write), and
// anything else are copied through Write.
func (w *response) ReadFrom(src io.Reader) (n int64, err error) {
	c := w.c
	if c.hijacked {
		return 0, http.ErrHijacked
	}
	buf := copyBufs.Get().(*[32 << 10]byte)
	defer copyBufs.Put(buf)
	if lr, ok := src.(*io.LimitedReader); ok && lr.N <= smallCopy {
		// A small file (what ServeContent hands over is limited to its
		// length): copied, it leaves with the header in one write(2),
		// where sendfile(2) would take a write and a sendfile and more
		// allocations (bench --http: 1 KiB files 33.6k requests/s copied,
		// 23.0k sent).
		return io.CopyBuffer(writerOnly{w}, src, buf[:])
	}
	if !w.committed {
		n0, err := io.CopyBuffer(writerOnly{w}, io.LimitReader(src, sniffLen), buf[:])
		n += n0
		if err != nil || n0 < sniffLen {
			return n, err
		}
	}
	if !w.committed {
		w.commitBuffered()
	}
	if w.chunking || w.isHEAD || !bodyAllowedForStatus(w.status) || c.tls != nil {
		n0, err := io.CopyBuffer(writerOnly{w}, src, buf[:])
		return n + n0, err
	}
	if w.contentLength != -1 {
		// No more than the Content-Length the header promised: a longer
		// source would run into the next response.
		left := w.contentLength - w.written
		if left <= 0 {
			return n, nil
		}
		if lr, ok := src.(*io.LimitedReader); ok {
			// One limit around the file (what ServeContent hands over),
			// not two, which the socket would not see through.
			if lr.N > left {
				inner := &io.LimitedReader{R: lr.R, N: left}
				defer func() { lr.N -= left - inner.N }()
				src = inner
			}
		} else {
			src = io.LimitReader(src, left)
		}
	}
	if err := c.bw.Flush(); err != nil {
		return n, err
	}
	n0, err := c.raw.ReadFrom(src)
	w.written += n0
	c.wrote(n0, err)
	return n + n0, err
}

// smallCopy is the length up to which a limited source is copied rather
// than sent with the socket's ReadFrom.
const smallCopy = 16 << 10

// copyBufs holds the buffers of ReadFrom's copies, net/http's size.
var copyBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// writerOnly hides every method of a Writer but Write (io.CopyBuffer would
// call ReadFrom again).
type writerOnly struct{ io.Writer }
