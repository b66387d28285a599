package conformance

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultCases are the fault suite (faults, misuse by the host
// program, load): what a loop embedded in another program must survive on
// every driver without hanging, spinning, losing or repeating work. The
// fd faults live in faults_fd.go, the signal storm and the 10 000 fds
// in faults_load_unix.go, the loops on many goroutines and threads in
// faults_threads.go.
func faultCases() []Case {
	cs := []Case{
		// 100 000 timers with random delays of 0-5 ms, half of them cancelled
		// in random order: exactly the others run, each once, none early.
		// Pins the timer heap's removal from arbitrary positions.
		{"FaultTimersArmedAndCancelledInRandomOrder", faultTimersCancelled},
		// 64 goroutines post 10 000 functions each while a Repeat(0) keeps the
		// loop busy (never blocking, so posts arrive between ticks, not on a
		// wakeup): every post runs exactly once and each goroutine's posts
		// run in the order it made them.
		{"FaultPostsFromManyGoroutinesWhileBusy", faultPostsWhileBusy},
		// Close with 10 000 fibers suspended (callbacks and microtasks):
		// every one is unwound, its Suspend returns ErrLoopClosed, its
		// deferred calls run, and no goroutine is left (the runner checks).
		{"FaultCloseWithManyFibersSuspended", faultCloseSuspended},
		// Panics from a callback, a microtask, the error handler and a
		// resumed fiber each come out of Run as an *UncaughtError with the
		// right ID and Type (0 for microtasks and the handler), and a second
		// Run runs what the first left.
		{"FaultPanicsComeOutAsUncaughtErrors", faultPanics},
	}
	cs = append(cs, faultThreadCases()...)
	return append(cs, faultFdCases()...)
}

func faultTimersCancelled(t *testing.T, l *core.Loop) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(5, 100_000))
	ids := make([]core.CallbackID, n)
	ran := make([]int, n)
	early := 0
	for i := range ids {
		d := time.Duration(rng.Int64N(int64(5*time.Millisecond) + 1))
		// Taken before Delay, so never later than the loop's own deadline.
		due := time.Now().Add(d)
		ids[i] = l.Delay(d, func(core.CallbackID) {
			ran[i]++
			if time.Now().Before(due) {
				early++
			}
		})
	}
	cancelled := make([]bool, n)
	for _, i := range rng.Perm(n)[:n/2] {
		l.Cancel(ids[i])
		cancelled[i] = true
	}
	start := time.Now()
	require.NoError(t, l.Run())
	bad := 0
	for i := range ran {
		want := 1
		if cancelled[i] {
			want = 0
		}
		if ran[i] != want {
			if bad++; bad <= 5 {
				t.Errorf("timer %d (cancelled %v) ran %d times, want %d", i, cancelled[i], ran[i], want)
			}
		}
	}
	assert.Zero(t, bad, "timers that ran a wrong number of times")
	assert.Zero(t, early, "timers that fired before their deadline")
	assert.Less(t, time.Since(start), 10*time.Second, "50 000 timers of at most 5 ms")
	assert.Empty(t, l.Identifiers(), "cancelled and expired timers are forgotten")
}

func faultPostsWhileBusy(t *testing.T, l *core.Loop) {
	const goroutines, posts = 64, 10_000
	next := make([]int, goroutines) // loop-owned: the next sequence number expected
	outOfOrder, total := 0, 0
	busy := l.Repeat(0, func(core.CallbackID) {})
	// A backstop: only a lost post lets it fire.
	l.Unreference(l.Delay(20*time.Second, func(core.CallbackID) {
		t.Errorf("posts still missing after 20 s: %d of %d ran", total, goroutines*posts)
		l.Cancel(busy)
	}))
	var wg sync.WaitGroup
	var postErr error
	var errOnce sync.Once
	l.Defer(func(core.CallbackID) {
		// Started from the loop, so that every post lands while it runs.
		for g := range goroutines {
			wg.Go(func() {
				for i := range posts {
					err := l.Post(func() {
						if i != next[g] {
							outOfOrder++
						}
						next[g] = i + 1
						if total++; total == goroutines*posts {
							l.Cancel(busy)
						}
					})
					if err != nil {
						errOnce.Do(func() { postErr = err })
						return
					}
				}
			})
		}
	})
	runErr := l.Run()
	wg.Wait()
	require.NoError(t, runErr)
	require.NoError(t, postErr)
	assert.Equal(t, goroutines*posts, total, "posts run")
	assert.Zero(t, outOfOrder, "posts run out of their goroutine's order")
	for g, n := range next {
		if n != posts {
			t.Errorf("goroutine %d: last post run is %d, want %d", g, n-1, posts-1)
		}
	}
}

func faultCloseSuspended(t *testing.T, l *core.Loop) {
	const n = 10_000
	deferred := 0
	errs := make([]error, n)
	returned := 0
	suspend := func(i int) {
		defer func() { deferred++ }()
		_, errs[i] = l.Suspension().Suspend()
		returned++
	}
	for i := range n {
		if i%2 == 0 {
			l.Defer(func(core.CallbackID) { suspend(i) })
		} else {
			l.Queue(func() { suspend(i) })
		}
	}
	// Suspended fibers keep nothing referenced: Run returns once they all
	// wait.
	require.NoError(t, l.Run())
	require.GreaterOrEqual(t, l.Stats().FibersLive, n, "fibers suspended before Close")
	require.Zero(t, deferred, "no fiber may be unwound before Close")
	require.NoError(t, l.Close())
	assert.Equal(t, n, deferred, "deferred calls run by Close")
	assert.Equal(t, n, returned, "Suspend calls that returned")
	bad := 0
	for i, err := range errs {
		if !errors.Is(err, core.ErrLoopClosed) {
			if bad++; bad <= 5 {
				t.Errorf("fiber %d: Suspend returned %v, want ErrLoopClosed", i, err)
			}
		}
	}
	assert.Zero(t, l.Stats().FiberGoroutines, "fiber goroutines after Close")
	assert.ErrorIs(t, l.Run(), core.ErrLoopClosed)
}

func faultPanics(t *testing.T, l *core.Loop) {
	// expect runs the loop once with a panic to come out and once more to
	// run what was left after it (a flag set by a timer armed with it).
	expect := func(what string, cause error, id core.CallbackID, typ core.CallbackType, left *bool) {
		t.Helper()
		err := l.Run()
		ue := rvRequireUncaught(t, err, cause)
		assert.Equal(t, id, ue.ID, "%s: ID", what)
		assert.Equal(t, typ, ue.Type, "%s: Type", what)
		assert.NotEmpty(t, ue.Stack, "%s: Stack", what)
		assert.False(t, *left, "%s: the timer left must not have run before the panic came out", what)
		require.NoError(t, l.Run(), "%s: second Run", what)
		assert.True(t, *left, "%s: the second Run runs what was left", what)
	}
	leave := func() *bool {
		left := new(bool)
		l.Delay(20*time.Millisecond, func(core.CallbackID) { *left = true })
		return left
	}

	errCallback := errors.New("panic in a callback")
	left := leave()
	id := l.Defer(func(core.CallbackID) { panic(errCallback) })
	expect("callback", errCallback, id, core.TypeDefer, left)

	errMicrotask := errors.New("panic in a microtask")
	left = leave()
	l.Defer(func(core.CallbackID) { l.Queue(func() { panic(errMicrotask) }) })
	expect("microtask", errMicrotask, 0, 0, left)

	errHandler := errors.New("panic in the error handler")
	handled := 0
	l.SetErrorHandler(func(error) {
		handled++
		panic(errHandler)
	})
	left = leave()
	l.Defer(func(core.CallbackID) { panic(errCallback) })
	expect("error handler", errHandler, 0, 0, left)
	assert.Equal(t, 1, handled, "the handler runs once for the callback's panic")
	l.SetErrorHandler(nil)

	errFiber := errors.New("panic in a resumed fiber")
	left = leave()
	var s *core.Suspension
	suspended := l.Defer(func(core.CallbackID) {
		s = l.Suspension()
		if _, err := s.Suspend(); err == nil {
			panic(errFiber)
		}
	})
	l.Delay(time.Millisecond, func(core.CallbackID) { s.Resume(nil) })
	expect("resumed fiber", errFiber, suspended, core.TypeDefer, left)
	assert.Zero(t, l.Stats().FibersLive, "fibers live at the end")
}
