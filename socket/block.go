//go:build unix || windows

package socket

import (
	"errors"
	"fmt"

	"github.com/revoltgo/eventloop/core"
)

// block waits, on a goroutine that is not a fiber of the loop, for w's
// wake. core.RunUntil does the deciding: if another goroutine runs the
// loop, the caller just waits for its wake (or for that run to end, and
// then takes the loop over); if nobody does (main between runs), the
// caller runs the loop itself until its call is done.
//
// If a run the caller made ends with an uncaught error (a callback's panic
// that no error handler took), a wait for readiness gives up and returns
// it; a wait for the loop to run a function (finish) runs on until the
// function has run, then returns it.
func block(l *core.Loop, w *waiter, finish bool) error {
	var uncaught error
	for {
		err := l.RunUntil(w.ch)
		switch {
		case err == nil:
			return uncaught
		case errors.Is(err, core.ErrLoopClosed):
			return errLoopClosed
		}
		err = fmt.Errorf("socket: the event loop stopped with an error: %w", err)
		if !finish {
			if d := w.d; d != nil {
				_ = l.Post(func() { d.remove(w) })
			}
			return err
		}
		uncaught = err
	}
}
