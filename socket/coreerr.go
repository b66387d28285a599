//go:build unix || windows

package socket

import (
	"errors"
	"fmt"
	"net"

	"github.com/revoltgo/eventloop/core"
)

// What core.FD's errors become, in one place: every wait, lock and sleep
// of the package (retry, read, acquire, the back-off) hands its error to
// ioErr, and what comes out is final.

// ioErr maps what core.FD says to what a call returns.
func (fd *netFD) ioErr(err error) error {
	if err == nil {
		return nil
	}
	return fd.ioFailed(err)
}

// ioFailed is ioErr's rest, out of line so that ioErr inlines:
//
//   - the loop was closed: the fd is closed with it (loopGone), and the
//     call says so (errLoopClosed);
//   - the fd was closed: net.ErrClosed, or errLoopClosed if the loop's
//     Close closed it;
//   - an uncaught error (a callback's panic that no error handler took)
//     ended the run a goroutine made for its call: worded as such;
//   - the descriptor was closed behind the socket's back: fdGoneError.
//
// Anything else (a registration the driver refused) is returned as is.
func (fd *netFD) ioFailed(err error) error {
	switch {
	case err == core.ErrLoopClosed:
		fd.loopGone()
		return errLoopClosed
	case err == net.ErrClosed:
		return fd.closedErr()
	}
	var ue *core.UncaughtError
	if errors.As(err, &ue) {
		return fmt.Errorf("socket: the event loop stopped with an error: %w", err)
	}
	if errors.Is(err, core.ErrFDClosed) {
		return fdGoneError{err}
	}
	return err
}

// fdGoneError is the error of a call whose descriptor the loop found
// closed behind the socket's back (a bug of the caller's: syscall.Close on
// what Control handed out): core.FD's failure, wrapping core.ErrFDClosed.
// Package net's call would have made its system call and failed with
// EBADF (WSAENOTSOCK on Windows), so the error matches that errno too and
// errors.As finds it, as in net's; its message names both.
type fdGoneError struct{ err error }

// errBadFDErr is errBadFD as the package's errors carry an errno
// (sysError's: Windows' matches the Unix name too).
var errBadFDErr = errors.Unwrap(sysError("", errBadFD))

func (e fdGoneError) Error() string {
	return fmt.Sprintf("%v: the descriptor was closed behind the socket's back (%v)", errBadFDErr, e.err)
}

func (e fdGoneError) Unwrap() []error { return []error{errBadFDErr, e.err} }
