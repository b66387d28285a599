package core_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAwaitFromFiberKeepsLoopAlive(t *testing.T) {
	l := newLoop(t)
	var got int
	var gotErr error
	l.Defer(func(core.CallbackID) {
		got, gotErr = core.Await(l, func(context.Context) (int, error) {
			time.Sleep(5 * time.Millisecond) // a blocking call, off the loop
			return 7, nil
		})
	})
	require.NoError(t, l.Run())
	require.NoError(t, gotErr)
	assert.Equal(t, 7, got)
}

func TestAwaitFromMainReturnsError(t *testing.T) {
	l := newLoop(t)
	boom := errors.New("boom")
	_, err := core.Await(l, func(context.Context) (string, error) { return "", boom })
	assert.ErrorIs(t, err, boom)
}

// Await over an interface type hands back a nil interface value as fn
// returned it, from main and from a fiber, instead of panicking on the type
// assertion of the nil it was resumed with.
func TestAwaitNilInterfaceResult(t *testing.T) {
	l := newLoop(t)
	var r io.Reader = strings.NewReader("unset")
	var err error
	msg := panicMessage(func() {
		r, err = core.Await(l, func(context.Context) (io.Reader, error) { return nil, nil })
	})
	require.Empty(t, msg, "Await[io.Reader] from main returning nil panicked")
	require.NoError(t, err)
	assert.Nil(t, r)

	got := errors.New("unset")
	var gotErr error
	l.Defer(func(core.CallbackID) {
		got, gotErr = core.Await(l, func(context.Context) (error, error) { return nil, nil })
	})
	require.NoError(t, l.Run(), "Await[error] in a fiber returning nil")
	require.NoError(t, gotErr)
	assert.Nil(t, got)

	// A non-nil interface value still comes through as it was.
	want := strings.NewReader("x")
	r, err = core.Await(l, func(context.Context) (io.Reader, error) { return want, nil })
	require.NoError(t, err)
	assert.Same(t, want, r)
}

// Close cancels the context of a pending Await and waits for it, so that
// its goroutine does not outlive the loop (goleak checks).
func TestCloseCancelsAwait(t *testing.T) {
	l := core.New(newTimerDriver())
	var awaitErr error
	started := make(chan struct{})
	l.Defer(func(core.CallbackID) {
		_, awaitErr = core.Await(l, func(ctx context.Context) (int, error) {
			close(started)
			<-ctx.Done()
			return 0, ctx.Err()
		})
	})
	l.Defer(func(id core.CallbackID) { <-started; l.Stop() })
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.ErrorIs(t, awaitErr, core.ErrLoopClosed)
}

func TestSuspendContextCancelled(t *testing.T) {
	l := newLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	var err error
	l.Defer(func(core.CallbackID) { _, err = l.Suspension().SuspendContext(ctx) })
	// The loop must stay alive until the cancellation arrives.
	keep := l.Repeat(time.Millisecond, func(core.CallbackID) {})
	l.Delay(50*time.Millisecond, func(core.CallbackID) { l.Cancel(keep) })
	require.NoError(t, l.Run())
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// SuspendContext on main's Suspension ends with ctx's error when ctx is
// cancelled, as on a fiber's. The callback that cancels waits until the
// cancellation's post is queued, so that the loop does not run out of
// work before it: with nothing else to run, only that post can end the
// Suspend, or the loop reports a deadlock.
func TestSuspendContextCancelledOnMain(t *testing.T) {
	l := newLoop(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l.Defer(func(core.CallbackID) {
		cancel()
		for deadline := time.Now().Add(time.Minute); l.Metrics().PostsPending == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	})
	_, err := l.Suspension().SuspendContext(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestSuspendContextResumed(t *testing.T) {
	l := newLoop(t)
	ctx, cancel := context.WithCancel(context.Background())
	var v any
	var err error
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		l.Defer(func(core.CallbackID) { s.Resume("ok"); cancel() })
		v, err = s.SuspendContext(ctx)
	})
	require.NoError(t, l.Run())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
}

func TestFiberLocal(t *testing.T) {
	l := newLoop(t)
	fl := core.NewFiberLocal(func() string { return "init" })
	fl.Set(l, "main")
	var seen []string
	l.Defer(func(core.CallbackID) {
		seen = append(seen, fl.Get(l))
		fl.Set(l, "cb1")
		s := l.Suspension()
		l.Defer(func(core.CallbackID) {
			seen = append(seen, fl.Get(l)) // the callback fiber was cleared
			s.Resume(nil)
		})
		_, _ = s.Suspend()
		seen = append(seen, fl.Get(l)) // its own fiber kept it
	})
	require.NoError(t, l.Run())
	assert.Equal(t, []string{"init", "init", "cb1"}, seen)
	assert.Equal(t, "main", fl.Get(l))
}

func TestRunOnce(t *testing.T) {
	l := newLoop(t)
	n := 0
	far := l.Delay(time.Minute, func(core.CallbackID) { n++ })
	start := time.Now()
	alive, err := l.RunOnce(false)
	require.NoError(t, err)
	assert.True(t, alive)
	assert.Less(t, time.Since(start), 30*time.Second, "RunOnce(false) does not wait for the timer")
	l.Cancel(far)
	l.Delay(20*time.Millisecond, func(core.CallbackID) { n++ })
	start = time.Now()
	for alive {
		alive, err = l.RunOnce(true)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, n)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}
