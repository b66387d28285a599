package socket

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/revoltgo/eventloop/core"
)

// errNilLoop: a constructor was given no loop.
var errNilLoop = errors.New("socket: nil *core.Loop")

// errLoopClosed is what an operation returns when its loop was closed
// under it (or before it): the conn is closed with the loop, so the error
// matches net.ErrClosed as well as core.ErrLoopClosed.
var errLoopClosed error = loopClosedError{}

type loopClosedError struct{}

func (loopClosedError) Error() string {
	return "use of closed network connection: its event loop was closed"
}

func (loopClosedError) Is(target error) bool {
	return target == net.ErrClosed || target == core.ErrLoopClosed
}

// dialCanceled is a dial stopped by its context, worded as net's.
type dialCanceled struct{ cause error }

func (e dialCanceled) Error() string { return "operation was canceled" }
func (e dialCanceled) Unwrap() error { return e.cause }

// dialTimeout is a dial that its context's deadline stopped: a timeout
// that matches both os.ErrDeadlineExceeded and context.DeadlineExceeded.
type dialTimeout struct{}

func (dialTimeout) Error() string   { return "i/o timeout" }
func (dialTimeout) Timeout() bool   { return true }
func (dialTimeout) Temporary() bool { return true }
func (dialTimeout) Is(target error) bool {
	return target == os.ErrDeadlineExceeded || target == context.DeadlineExceeded
}

// ctxError maps a context's error as net does.
func ctxError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return dialTimeout{}
	}
	return dialCanceled{cause: err}
}
