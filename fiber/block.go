package fiber

import (
	"context"
	"errors"
	"fmt"

	"github.com/revoltgo/eventloop/core"
)

// blocking runs op in a fiber of l for a goroutine that is not one of l's
// fibers, and blocks until op has ended. Every primitive's state lives on
// the loop, so a goroutine's call is the fiber's call made for it: one
// set of rules, and the fiber path stays free of locks.
//
// While op waits, the loop's Run goes on, as for a goroutine's wait on an
// FD (another goroutine may still be about to send): op's context is one
// that can end, as it must be for an uncaught error to end op, and such a
// wait holds the loop (wait). If nobody runs the loop, RunUntil runs it
// here. A panic of op (a
// misuse) is raised again in the calling goroutine. An uncaught error of
// another callback that ends the run made here cancels op; if op was
// done anyway, the error is posted back to the loop as a panic, which
// comes out of the next Run (or reaches the error handler) as it was.
func blocking(l *core.Loop, ctx context.Context, what string, op func(ctx context.Context) error) error {
	opCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	var (
		err      error
		panicked bool
		pv       any
	)
	posted := l.Post(func() {
		defer func() {
			if r := recover(); r != nil {
				panicked, pv = true, r
			}
			close(done)
		}()
		err = op(opCtx)
	})
	if posted != nil {
		return closedErr(what)
	}
	var uncaught error
	for {
		e := l.RunUntil(done)
		if e == nil {
			break
		}
		if errors.Is(e, core.ErrLoopClosed) {
			// Close runs what was posted and unwinds its fibers: op ends
			// before Close returns.
			<-done
			break
		}
		if uncaught == nil {
			uncaught = e
			cancel()
		} else {
			uncaught = errors.Join(uncaught, e)
		}
	}
	if panicked {
		panic(pv)
	}
	if uncaught != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return uncaught
		}
		_ = l.Post(func() { panic(uncaught) })
	}
	return named(what, err)
}

// named names the call in the error of a wait that the loop's Close
// ended (the waits return core.ErrLoopClosed itself); other errors pass.
func named(what string, err error) error {
	if err == core.ErrLoopClosed {
		return closedErr(what)
	}
	return err
}

// closedErr names the call that the loop's Close ended or refused.
func closedErr(what string) error {
	return fmt.Errorf("fiber: %s: %w", what, core.ErrLoopClosed)
}
