//go:build unix || windows

package socket

import (
	"io"
	"os"

	"github.com/revoltgo/eventloop/core"
)

// The I/O under a TLSConn (tls.go): one read(2) or write(2) at a time,
// made by crypto/tls under its own locks, which must never be held while
// a fiber is suspended.

// tlsRead reads once into p. With wait, it waits for readiness (the
// handshake, which holds both direction locks); without, a socket with
// nothing to read answers errWouldBlock at once, which crypto/tls passes
// up without keeping it (a temporary error), and the TLSConn waits
// outside crypto/tls.
func (fd *netFD) tlsRead(p []byte, wait bool) (int, error) {
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	for {
		n, errno := sysRead(fd.sysfd, p)
		switch errno {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case errIntr:
			continue
		case errAgain:
			if !wait {
				return 0, errWouldBlock
			}
			if err := fd.wait(core.Read); err != nil {
				return 0, err
			}
		default:
			return 0, sysError(callRead, errno)
		}
	}
}

// tlsWrite writes what it can of p at once: n, and errAgain if the socket
// is full.
func (fd *netFD) tlsWrite(p []byte) (int, error) {
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	for {
		n, errno := sysWrite(fd.sysfd, p)
		switch errno {
		case 0:
			return n, nil
		case errIntr:
			continue
		case errAgain:
			return max(n, 0), errAgain
		}
		return 0, sysError(callWrite, errno)
	}
}

// writeLocked writes all of p, waiting while the socket is full; the
// caller holds the write lock (the handshake).
func (fd *netFD) writeLocked(p []byte) (int, error) {
	nn := 0
	for nn < len(p) {
		if fd.pd.Expired(core.Write) {
			return nn, fd.opError("write", os.ErrDeadlineExceeded)
		}
		n, err := fd.tlsWrite(p[nn:])
		nn += n
		switch {
		case err == errAgain:
			if err := fd.wait(core.Write); err != nil {
				return nn, fd.opError("write", err)
			}
		case err != nil:
			return nn, fd.opError("write", err)
		}
	}
	return nn, nil
}
