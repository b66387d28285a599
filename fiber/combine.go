package fiber

import (
	"context"
	"errors"

	"github.com/revoltgo/eventloop/core"
)

// All waits until every future is done (amphp's awaitAll) and returns
// their values in order, with the errors of those that failed joined
// (errors.Join; nil if none failed; a failed future's value is the zero
// value). If ctx ends first it returns nil and ctx.Err(). Called from any
// goroutine, like Future.Await; all futures must belong to one loop.
func All[T any](ctx context.Context, fs ...*Future[T]) ([]T, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	l := loopOf("All", fs)
	var vs []T
	err := onLoop(l, ctx, "All", func(ctx context.Context) error {
		vs = make([]T, len(fs))
		var errs []error
		for i, f := range fs {
			if _, err := f.awaitListed(ctx); !f.done {
				vs = nil
				return err // the wait ended: ctx, or Close
			}
			vs[i] = f.v
			if f.err != nil {
				errs = append(errs, f.err)
			}
		}
		return errors.Join(errs...)
	})
	return vs, err
}

// Any returns the value of the first future to succeed (amphp's
// awaitAny); if every one fails, the errors of all, joined. If ctx ends
// first it returns ctx.Err(). It panics if fs is empty.
func Any[T any](ctx context.Context, fs ...*Future[T]) (T, error) {
	l := loopOf("Any", fs)
	var v T
	err := onLoop(l, ctx, "Any", func(ctx context.Context) error {
		var pending []*Future[T]
		for {
			pending = pending[:0]
			for _, f := range fs {
				if !f.done {
					pending = append(pending, f)
				} else if f.err == nil {
					v = f.v
					return nil
				}
			}
			if len(pending) == 0 {
				errs := make([]error, len(fs))
				for i, f := range fs {
					errs[i] = f.err
				}
				return errors.Join(errs...)
			}
			if _, err := firstDone(l, ctx, pending); err != nil {
				return err
			}
		}
	})
	return v, err
}

// First returns the result of the first future to be done, success or
// failure (amphp's awaitFirst); of those done already, the first in fs.
// If ctx ends first it returns ctx.Err(). It panics if fs is empty.
func First[T any](ctx context.Context, fs ...*Future[T]) (T, error) {
	l := loopOf("First", fs)
	var v T
	err := onLoop(l, ctx, "First", func(ctx context.Context) error {
		i, err := firstDone(l, ctx, fs)
		if err != nil {
			return err
		}
		v = fs[i].v
		return fs[i].err
	})
	return v, err
}

// firstDone waits in a fiber of l until one of fs is done and returns
// its index (the first in fs of those done).
func firstDone[T any](l *core.Loop, ctx context.Context, fs []*Future[T]) (int, error) {
	for i, f := range fs {
		if f.done {
			return i, nil
		}
	}
	sig := &Future[int]{l: l}
	ns := make([]*node[struct{}], len(fs))
	for i, f := range fs {
		n := f.list().get(nil)
		n.fn = func() {
			if !sig.done {
				sig.settle(i, nil)
			}
		}
		f.waiters.push(n)
		ns[i] = n
	}
	i, err := sig.awaitListed(ctx)
	for j, n := range ns {
		if n.parked {
			fs[j].waiters.remove(n)
			n.parked = false
		}
		fs[j].waiters.put(n)
	}
	return i, err
}

// loopOf is the loop of fs, which must all have one.
func loopOf[T any](what string, fs []*Future[T]) *core.Loop {
	if len(fs) == 0 {
		panic("fiber: " + what + " called with no futures")
	}
	l := fs[0].l
	for _, f := range fs[1:] {
		if f.l != l {
			panic("fiber: " + what + " called with futures of different loops")
		}
	}
	return l
}

// onLoop runs op in the calling fiber of l, or for any other goroutine in
// one made for it (blocking).
func onLoop(l *core.Loop, ctx context.Context, what string, op func(ctx context.Context) error) error {
	if l.InFiber() {
		return named(what, op(ctx))
	}
	return blocking(l, ctx, what, op)
}
