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
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		require.NoError(t, l.Run()) // the fiber is created here, suspended
	}()
	<-done
	l.Defer(func(core.CallbackID) { s.Resume(1) })
	require.NoError(t, l.Run()) // unlocked: resumes it once
	done = make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l.Defer(func(core.CallbackID) { s.Resume(2) })
		main := l.Suspension()
		l.Delay(0, func(core.CallbackID) { main.Resume("main") })
		v, err := main.Suspend()
		assert.NoError(t, err)
		assert.Equal(t, "main", v)
		assert.NoError(t, l.Run())
	}()
	<-done
	assert.Equal(t, []any{1, 2}, got)
}
