//go:build unix || windows

package socket

import (
	"errors"
	"fmt"

	"github.com/revoltgo/eventloop/core"
)

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

// fdGone words err, an error of core.FD's, if it says that the descriptor
// is gone; any other error is returned as is.
func fdGone(err error) error {
	if errors.Is(err, core.ErrFDClosed) {
		return fdGoneError{err}
	}
	return err
}
