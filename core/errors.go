package core

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalidCallback is matched (errors.Is) by every *InvalidCallbackError.
	ErrInvalidCallback = errors.New("eventloop: invalid callback identifier")
	// ErrLoopRunning is returned by Run when the loop is already running:
	// called from inside a callback, or from a second goroutine.
	ErrLoopRunning = errors.New("eventloop: the event loop is already running")
	// ErrLoopClosed is returned by Run, Post, OnSignal, Enable, Reference and
	// the lookup methods after Close, and by Suspend in a fiber that Close
	// unwinds.
	ErrLoopClosed = errors.New("eventloop: the event loop is closed")
	// ErrDeadlock is wrapped by the error a main Suspend returns when the loop
	// runs out of callbacks before the suspension is resumed.
	ErrDeadlock = errors.New("eventloop: event loop terminated without resuming the current suspension")
	// ErrGoexit is the cause in the *UncaughtError that Run (or a main
	// Suspend) returns when a callback called runtime.Goexit (as t.FailNow
	// does): that callback's fiber, and the fibers that had resumed it,
	// ended; the loop goes on without them.
	ErrGoexit = errors.New("eventloop: a callback called runtime.Goexit (t.FailNow?); its fiber ended")
	// ErrUnsupported is matched by errors for what this platform or driver
	// cannot do (it is errors.ErrUnsupported).
	ErrUnsupported = errors.ErrUnsupported
)

// InvalidCallbackError reports an id that names no callback of the loop
// (never issued, or cancelled).
type InvalidCallbackError struct {
	ID CallbackID
}

func (e *InvalidCallbackError) Error() string {
	return "eventloop: invalid callback identifier " + e.ID.String()
}

// Is makes errors.Is(err, ErrInvalidCallback) hold.
func (e *InvalidCallbackError) Is(target error) bool { return target == ErrInvalidCallback }

// UncaughtError is a panic that escaped a callback, a microtask or the error
// handler, or an fd error (FDError) that no callback could be told about.
type UncaughtError struct {
	Value any          // the panic value (an error or anything else)
	ID    CallbackID   // 0 for microtasks and the error handler
	Type  CallbackType // 0 for microtasks and the error handler
	Stack []byte       // where it panicked
}

func (e *UncaughtError) Error() string {
	if err, ok := e.Value.(error); ok && e.Stack == nil {
		// Not a panic (every recovered panic carries its stack): an fd the
		// loop stopped watching, a driver that failed, a Goexit.
		msg := err.Error()
		if strings.HasPrefix(msg, "eventloop: ") {
			return msg
		}
		return "eventloop: " + msg
	}
	var b strings.Builder
	b.WriteString("eventloop: uncaught ")
	switch {
	case e.Type != 0:
		fmt.Fprintf(&b, "panic in %s callback %s: ", e.Type, e.ID)
	case e.ID != 0:
		fmt.Fprintf(&b, "panic in callback %s: ", e.ID)
	default:
		b.WriteString("panic: ")
	}
	if err, ok := e.Value.(error); ok {
		b.WriteString(err.Error())
	} else {
		fmt.Fprintf(&b, "%v", e.Value)
	}
	return b.String()
}

// Unwrap returns Value if it is an error, else nil.
func (e *UncaughtError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// FDError reports a file descriptor that the loop stopped watching because
// the driver refused it, it was not open when watched, or it was found
// closed (or closed and its number reused by another file) while watched. Every watcher of
// the fd has been disabled. It reaches the error handler (or comes out of
// Run) inside an *UncaughtError whose ID is the first watcher's.
type FDError struct {
	FD  int
	IDs []CallbackID // the watchers that were disabled
	Err error        // the driver's error, or ErrFDClosed
}

// ErrFDClosed is the cause in an FDError for an fd that was closed while it
// was watched (close watched fds with Loop.CloseFD).
var ErrFDClosed = errors.New("fd closed while watched (close it with Loop.CloseFD, or cancel its callbacks first)")

func (e *FDError) Error() string {
	ids := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = id.String()
	}
	return fmt.Sprintf("eventloop: fd %d watched by %s: %v", e.FD, strings.Join(ids, ", "), e.Err)
}

func (e *FDError) Unwrap() error { return e.Err }
