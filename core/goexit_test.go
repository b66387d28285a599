package core_test

import (
	"runtime"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A callback that calls runtime.Goexit (t.FailNow does) ends the goroutine
// that called Run, as Go would have it, instead of deadlocking the loop; the
// loop can still be closed and leaks nothing (goleak in TestMain).
func TestGoexitInCallbackEndsRunCaller(t *testing.T) {
	l := core.New(newTimerDriver())
	ran := false
	l.Defer(func(core.CallbackID) { runtime.Goexit() })
	l.Defer(func(core.CallbackID) { ran = true })
	returned := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = l.Run()
		returned = true
	}()
	<-done
	assert.False(t, returned, "Run's caller ended with the Goexit")
	assert.False(t, ran)
	require.NoError(t, l.Close())
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
