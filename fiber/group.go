package fiber

import (
	"context"

	"github.com/revoltgo/eventloop/core"
)

// Group runs functions in fibers of one loop and waits for them, in
// errgroup's shape: the first function to return an error cancels the
// context the others were given, and Wait returns that error.
//
// Go and Wait may be called from any goroutine (Go from a goroutine
// starts the fiber through Loop.Post, in the next tick); as with
// errgroup, a call to Go must happen before the Wait that is to wait for
// it. Wait from a fiber of the loop suspends it; from any other goroutine
// it blocks (and runs the loop if nobody does).
type Group struct {
	l       *core.Loop
	ctx     context.Context
	cancel  context.CancelCauseFunc
	n       int // functions started and not yet returned
	err     error
	waiters waitList[struct{}]
}

// NewGroup returns a group of l whose functions get a context derived
// from ctx, cancelled by the first error and when Wait returns.
func NewGroup(ctx context.Context, l *core.Loop) *Group {
	gctx, cancel := context.WithCancelCause(ctx)
	return &Group{l: l, ctx: gctx, cancel: cancel}
}

// Go runs fn in a new fiber of the group's loop (as Go, the function, does)
// with the group's context. A panic in fn goes to the loop (its error
// handler, or Run) and counts as the error ErrPanicked. If the loop is
// closed, fn never runs and Wait reports the closed loop.
func (g *Group) Go(fn func(ctx context.Context) error) {
	if fn == nil {
		panic("fiber: Group.Go called with a nil func")
	}
	run := func() {
		returned := false
		defer func() {
			if !returned {
				g.done(ErrPanicked)
			}
		}()
		err := fn(g.ctx)
		returned = true
		g.done(err)
	}
	if g.l.InFiber() {
		g.n++
		g.l.Queue(run)
		return
	}
	// n goes up on the loop, in the post, before any later post's Wait.
	_ = g.l.Post(func() { g.n++; run() })
}

func (g *Group) done(err error) {
	if err != nil && g.err == nil {
		g.err = err
		g.cancel(err)
	}
	g.n--
	if g.n == 0 {
		for n := g.waiters.pop(); n != nil; n = g.waiters.pop() {
			n.wake(nil)
		}
	}
}

// Wait waits until every function started by Go has returned, then
// cancels the group's context and returns the first error (nil if none).
// If the loop closes first it returns an error wrapping
// core.ErrLoopClosed.
func (g *Group) Wait() error {
	return onLoop(g.l, context.Background(), "Group.Wait", func(ctx context.Context) error {
		if g.n > 0 {
			n := g.waiters.get(g.l.Suspension())
			g.waiters.push(n)
			err := wait(g.l, ctx, n)
			g.waiters.put(n)
			if err != nil {
				return err
			}
		}
		g.cancel(nil)
		return g.err
	})
}
