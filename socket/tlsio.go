//go:build unix || windows

package socket

import (
	"io"
	"syscall"

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
	n := 0
	err := fd.retry(core.Read, callRead, func() error {
		var errno syscall.Errno
		n, errno = sysRead(fd.pd.Sysfd(), p)
		switch {
		case errno == errAgain && !wait:
			return errWouldBlock
		case errno != 0:
			return errnoErr(errno)
		case n == 0:
			return io.EOF
		}
		return nil
	})
	return n, err
}

// tlsWrite makes one write(2) of what it can of p: its count, and the
// errno of a call that wrote nothing (errAgain: the socket is full), as
// retry takes it.
func (fd *netFD) tlsWrite(p []byte) (int, error) {
	n, errno := sysWrite(fd.pd.Sysfd(), p[:min(len(p), maxRW)])
	if errno != 0 {
		return 0, errnoErr(errno)
	}
	return n, nil
}
