package httpserver

import (
	"io"
	"net/http"
)

// body is a request's Body: http.ReadRequest's, with what the server
// needs to know of it (whether it was read to the end, how much of it was
// read), the 100 Continue sent on the first Read, and an end: once the
// request is over, reads fail as net/http's do.
type body struct {
	c      *conn
	src    io.ReadCloser
	n      int64 // bytes read
	closed bool  // by the handler, or by the end of the request
	sawEOF bool
	failed bool // a read failed: the rest of the connection cannot be trusted
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	c := b.c
	if w := &c.res; w.canWriteContinue {
		w.canWriteContinue = false
		w.writeContinue()
	}
	n, err := b.src.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.sawEOF = true
		c.bodyDone()
	case err != nil:
		b.failed = true
	}
	return n, err
}

// Close stops the handler's reads; what is left is consumed (or the
// connection closed) when the response is complete.
func (b *body) Close() error {
	b.closed = true
	return nil
}

// drain reads what is left of the body, up to maxPostHandlerReadBytes;
// true if it reached the end within them. As net/http's, a body with more
// left is too big even when its end comes with the byte over the limit:
// the connection closes.
func (b *body) drain() bool {
	if b.sawEOF {
		return true
	}
	if b.failed {
		return false
	}
	scratch := b.c.ls.scratch[:]
	for left := maxPostHandlerReadBytes; left >= 0; {
		n, err := b.src.Read(scratch[:min(len(scratch), left+1)])
		b.n += int64(n)
		left -= n
		switch {
		case err == io.EOF:
			b.sawEOF = true
			return left >= 0
		case err != nil:
			b.failed = true
			return false
		}
	}
	return false
}
