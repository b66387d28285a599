package httpserver

import "bufio"

// bufSize is the size of a connection's read and write buffers (as
// net/http's), and of a loop's scratch buffer for idle reads.
const bufSize = 4 << 10

// poolMax bounds each of a loop's free lists: beyond it, buffers go to
// the garbage collector.
const poolMax = 1024

// freeList is a loop's stack of spare buffers of one kind: a slice, not a
// sync.Pool, since only the loop's fibers use it and never two at once.
type freeList[T any] struct{ items []T }

// get pops the buffer put last; false when the list is empty.
func (f *freeList[T]) get() (x T, ok bool) {
	n := len(f.items)
	if n == 0 {
		return x, false
	}
	x = f.items[n-1]
	var zero T
	f.items[n-1] = zero // the slot must not keep the buffer alive once it is handed out
	f.items = f.items[:n-1]
	return x, true
}

// put keeps x for a later get, unless poolMax are kept already.
func (f *freeList[T]) put(x T) {
	if len(f.items) < poolMax {
		f.items = append(f.items, x)
	}
}

// getReader is a read buffer reading from r, spare or new.
func (ls *loopState) getReader(r *connReader) *bufio.Reader {
	if br, ok := ls.readers.get(); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, bufSize)
}

// putReader keeps br for another connection; the Reset lets go of the
// conn it read from.
func (ls *loopState) putReader(br *bufio.Reader) {
	br.Reset(nil)
	ls.readers.put(br)
}

// getWriter is a write buffer writing to w, spare or new.
func (ls *loopState) getWriter(w *connWriter) *bufio.Writer {
	if bw, ok := ls.writers.get(); ok {
		bw.Reset(w)
		return bw
	}
	return bufio.NewWriterSize(w, bufSize)
}

// putWriter keeps bw for another connection; the Reset drops what it
// holds unsent and the conn it wrote to.
func (ls *loopState) putWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	ls.writers.put(bw)
}

// getBody is a buffer for a response body held back until commit (up to
// bufferBeforeChunking), spare or new.
func (ls *loopState) getBody() []byte {
	if b, ok := ls.bodies.get(); ok {
		return b
	}
	return make([]byte, 0, bufferBeforeChunking)
}

// putBody keeps b for another response.
func (ls *loopState) putBody(b []byte) { ls.bodies.put(b[:0]) }
