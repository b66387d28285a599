package core_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A callback that calls runtime.Goexit (t.FailNow does) ends its own fiber
// cleanly; Run reports it instead of deadlocking or taking its caller down,
// and the loop goes on: the next Run runs what is left, Close leaks nothing
// (goleak in TestMain).
func TestGoexitInCallbackIsReported(t *testing.T) {
	l := newLoop(t)
	ran := false
	deferred := false
	l.Defer(func(core.CallbackID) {
		defer func() { deferred = true }()
		runtime.Goexit()
	})
	l.Defer(func(core.CallbackID) { ran = true })
	err := l.Run()
	require.ErrorIs(t, err, core.ErrGoexit)
	var u *core.UncaughtError
	require.ErrorAs(t, err, &u)
	assert.True(t, deferred, "the fiber's deferred calls ran")
	assert.False(t, ran)
	require.NoError(t, l.Run())
	assert.True(t, ran)
	assert.Zero(t, l.Stats().FibersLive)
}

// The same from a fiber that was suspended and resumed, with main
// suspended: the main Suspend returns the error.
func TestGoexitInResumedFiberEndsMainSuspend(t *testing.T) {
	l := newLoop(t)
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		l.Defer(func(core.CallbackID) { s.Resume(nil) })
		_, _ = s.Suspend()
		runtime.Goexit()
	})
	_, err := l.Suspension().Suspend()
	require.ErrorIs(t, err, core.ErrGoexit)
	n := 0
	l.Defer(func(core.CallbackID) { n++ })
	require.NoError(t, l.Run())
	assert.Equal(t, 1, n)
}

// failFirstWaitDriver's first Wait fails.
type failFirstWaitDriver struct {
	*timerDriver
	waited bool
}

func (d *failFirstWaitDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if !d.waited {
		d.waited = true
		return 0, errors.New("wait failed")
	}
	return d.timerDriver.Wait(events, timeout)
}

// Goexit in the error handler, called for an error the tick itself raised
// (a driver's failed Wait), ends the handler's fiber only: no other fiber
// loses its role (an orphaned callback fiber would stay parked and live),
// so once the next Run has run out of callbacks no fiber is left live.
func TestGoexitInErrorHandlerLeavesTheCallbackFiber(t *testing.T) {
	l := core.New(&failFirstWaitDriver{timerDriver: newTimerDriver()})
	defer l.Close()
	l.SetErrorHandler(func(error) { runtime.Goexit() })
	n := 0
	l.Defer(func(core.CallbackID) { n++ })
	// Not due before the first Wait, even on a slow machine: a timer due
	// by then leaves the tick nothing to wait for, and Run ends without
	// the failed Wait (under Wine, a 1 ms one did, a few runs in 200).
	l.Delay(100*time.Millisecond, func(core.CallbackID) { n++ })
	require.ErrorIs(t, l.Run(), core.ErrGoexit)
	require.NoError(t, l.Run())
	assert.Equal(t, 2, n)
	assert.Zero(t, l.Stats().FibersLive, "fibers live after the loop ran out of callbacks")
	require.NoError(t, l.Close())
}

// Goexit while Close unwinds a fiber: Close still ends every other fiber.
func TestGoexitDuringClose(t *testing.T) {
	l := core.New(newTimerDriver())
	unwound := 0
	for i := range 3 {
		l.Defer(func(core.CallbackID) {
			defer func() { unwound++ }()
			_, _ = l.Suspension().Suspend()
			if i == 1 {
				runtime.Goexit()
			}
		})
	}
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
	assert.Equal(t, 3, unwound)
	assert.Zero(t, l.Stats().FiberGoroutines)
}

// Run on a second goroutine while the first runs is refused, not a race.
func TestRunOnTwoGoroutines(t *testing.T) {
	l := newLoop(t)
	started := make(chan struct{})
	release := make(chan struct{})
	l.Defer(func(core.CallbackID) {
		close(started)
		<-release
	})
	done := make(chan error)
	go func() { done <- l.Run() }()
	<-started
	assert.ErrorIs(t, l.Run(), core.ErrLoopRunning)
	close(release)
	require.NoError(t, <-done)
}
