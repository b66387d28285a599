package socket

import (
	"io"
	"sync"
)

// copyBufs holds the buffers of ReadFrom's copy, net's size.
var copyBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// readFromCopy is ReadFrom for what sendFile does not take: Read and
// Write through a buffer (io.Copy, without ReadFrom, which would call
// itself).
func readFromCopy(w io.Writer, r io.Reader) (int64, error) {
	buf := copyBufs.Get().(*[32 << 10]byte)
	defer copyBufs.Put(buf)
	return io.CopyBuffer(writerOnly{w}, r, buf[:])
}

// writerOnly hides every method of a Writer but Write.
type writerOnly struct{ io.Writer }
