package socket

import (
	"context"
	"errors"
	"io"
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

// The package's errors reach the caller wrapped once, here, in a
// *net.OpError worded as net's for the same call: the exported methods
// wrap what their netFD returned, which is final already (retry,
// coreerr.go).

// readError is Read's error: io.EOF as is, anything else wrapped.
//
//go:noinline
func (fd *netFD) readError(err error) error {
	if err == io.EOF {
		return err
	}
	return fd.opError("read", err)
}

// opError wraps err as net's conns do. It is not inlined: the error path
// would otherwise widen the frames of Read and Write, which sit on the
// stack of every fiber suspended in them (see read, in io.go: an idle
// connection's fiber keeps to the 2 KiB of stack it starts with).
//
//go:noinline
func (fd *netFD) opError(op string, err error) error {
	if fd.ln != nil {
		return &net.OpError{Op: op, Net: fd.net, Addr: fd.laddr, Err: err}
	}
	return &net.OpError{Op: op, Net: fd.net, Source: fd.laddr, Addr: fd.raddr, Err: err}
}

// localOpError is opError for the calls whose errors net's conns word
// with the local address alone: the deadlines, the buffer sizes and
// raw-control (the TCP options name both ends, as opError does).
//
//go:noinline
func (fd *netFD) localOpError(op string, err error) error {
	return &net.OpError{Op: op, Net: fd.net, Addr: fd.laddr, Err: err}
}

// opErrorTo wraps err as net's datagram sends do: the address is the
// destination.
func (fd *netFD) opErrorTo(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: fd.net, Source: fd.laddr, Addr: addr, Err: err}
}
