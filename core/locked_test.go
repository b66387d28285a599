package core_test

import (
	"runtime"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A loop works when Run is called from a goroutine locked to its thread, an
// unlocked one, or one after the other, with fibers suspended across the
// change (the runtime aborts the process if a coroutine is switched to in
// another thread-lock state than it was created in).
func TestRunLockedThenUnlocked(t *testing.T) {
	l := newLoop(t)
	var s *core.Suspension
	var got []any
	l.Defer(func(core.CallbackID) {
		s = l.Suspension()
		v, _ := s.Suspend()
		got = append(got, v)
		v, _ = s.Suspend()
		got = append(got, v)
	})
	// The goroutines only report: every check runs here, on the test's
	// goroutine (require's FailNow must not run anywhere else).
	runErr := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		runErr <- l.Run() // the fiber is created here, suspended
	}()
	require.NoError(t, <-runErr)
	l.Defer(func(core.CallbackID) { s.Resume(1) })
	require.NoError(t, l.Run()) // unlocked: resumes it once
	type result struct {
		v               any
		suspErr, runErr error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l.Defer(func(core.CallbackID) { s.Resume(2) })
		main := l.Suspension()
		l.Delay(0, func(core.CallbackID) { main.Resume("main") })
		var r result
		r.v, r.suspErr = main.Suspend()
		r.runErr = l.Run()
		res <- r
	}()
	r := <-res
	require.NoError(t, r.suspErr)
	assert.Equal(t, "main", r.v)
	require.NoError(t, r.runErr)
	assert.Equal(t, []any{1, 2}, got)
}
