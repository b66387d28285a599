package core

import (
	"context"
	"sync"
)

// Await runs fn on a goroutine of its own and suspends the current fiber
// (or, from main, runs the loop) until fn returns, then returns its result.
// The loop stays alive while fn runs, so a blocking Go call (a DNS lookup, a
// database driver, a file read) can be written in a fiber without blocking
// the loop. fn gets a context that Close cancels; Close waits for fn to
// return, so fn must honour it for Close to be prompt.
func Await[T any](l *Loop, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if l.closing || l.closed {
		return zero, ErrLoopClosed
	}
	s := l.Suspension()
	ctx := l.awaitContext()
	l.awaiting++
	l.awaitWG.Add(1)
	go func() {
		defer l.awaitWG.Done()
		v, err := fn(ctx)
		// After Close the fiber was unwound already: the result has nowhere
		// to go.
		_ = l.Post(func() {
			l.awaiting--
			if err != nil {
				s.Throw(err)
			} else {
				s.Resume(v)
			}
		})
	}()
	v, err := s.Suspend()
	if err != nil {
		return zero, err
	}
	// The comma-ok form: when T is an interface type and fn returned a nil
	// one, v is a nil any, which a plain assertion to T panics on.
	res, _ := v.(T)
	return res, nil
}

// awaitContext is the context handed to Await functions; Close cancels it.
func (l *Loop) awaitContext() context.Context {
	if l.awaitCtx == nil {
		l.awaitCtx, l.awaitCancel = context.WithCancel(context.Background())
	}
	return l.awaitCtx
}

// awaitState is embedded in Loop.
type awaitState struct {
	awaiting    int // Await calls in flight: they keep Run going
	awaitWG     sync.WaitGroup
	awaitCtx    context.Context
	awaitCancel context.CancelFunc
}

// SuspendContext is Suspend that also ends when ctx is done: it then returns
// ctx's error (the suspension is thrown with it). A Resume that raced the
// cancellation wins if its microtask was queued first.
func (s *Suspension) SuspendContext(ctx context.Context) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ctx.Done() == nil {
		return s.Suspend()
	}
	l := s.l
	epoch := s.epoch + 1
	stop := context.AfterFunc(ctx, func() {
		_ = l.Post(func() {
			if s.pending && s.epoch == epoch {
				s.Throw(ctx.Err())
			}
		})
	})
	defer stop()
	return s.Suspend()
}
