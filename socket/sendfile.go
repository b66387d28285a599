//go:build unix || windows

package socket

import (
	"io"
	"syscall"
)

// sendFile is Conn.ReadFrom's zero-copy path: from an *os.File (file), or
// an io.LimitedReader of one (what io.CopyN and http.ServeContent hand
// over), the bytes go from the file to the socket inside the kernel,
// under the write lock and deadline, the caller waiting while the socket
// is full as a Write waits. handled is false when r is not such a file,
// the socket is not a stream, or the system cannot send from this file:
// nothing was sent, and the caller copies instead.
func (fd *netFD) sendFile(r io.Reader) (written int64, err error, handled bool) {
	if fd.dgram() {
		return 0, nil, false
	}
	remain := int64(1<<63 - 1)
	lr, limited := r.(*io.LimitedReader)
	if limited {
		remain, r = lr.N, lr.R
		if remain <= 0 {
			return 0, nil, true
		}
	}
	f, ok := r.(file)
	if !ok || !canSendFile {
		return 0, nil, false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, nil, false
	}
	// Control, not Read: it keeps the file open without its read lock,
	// which a fiber must not hold while it is suspended (another fiber
	// reading the file would block the loop's goroutine on it).
	cerr := sc.Control(func(src uintptr) {
		written, err, handled = fd.sendFileFrom(f, int(src), remain)
	})
	if cerr != nil {
		return 0, nil, false
	}
	if limited {
		lr.N = remain - written
	}
	if handled && testHookSentFile != nil {
		testHookSentFile(written)
	}
	return written, err, handled
}

// file is what sendFile sends from: an *os.File, or what hides one of its
// methods but keeps the rest (io.Copy from an *os.File hands ReadFrom the
// file behind a wrapper that hides WriteTo).
type file interface {
	io.Reader
	io.Seeker
	SyscallConn() (syscall.RawConn, error)
}

// testHookSentFile, when set, is told what each zero-copy send sent.
var testHookSentFile func(n int64)
