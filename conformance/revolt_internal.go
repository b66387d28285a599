package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// revoltInternalCases pin behaviour of Revolt's AbstractDriver and
// DriverSuspension that its two test files exercise only in passing.
func revoltInternalCases() []Case {
	return []Case{
		// From DriverSuspension::suspend(): a main Suspend that the loop
		// cannot resume, because nothing is left to run, fails instead of
		// blocking forever.
		{Name: "SuspensionDeadlock", Fn: func(t *testing.T, l *core.Loop) {
			_, err := l.Suspension().Suspend()
			require.ErrorIs(t, err, core.ErrDeadlock)
		}},

		// From DriverSuspension::suspend(): the same with a callback fiber
		// suspended for good; Close then unwinds that fiber.
		{Name: "SuspensionDeadlockWithSuspendedFiber", Fn: func(t *testing.T, l *core.Loop) {
			done := false
			var fiberErr error
			l.Defer(func(core.CallbackID) {
				_, fiberErr = l.Suspension().Suspend()
				done = true
			})
			_, err := l.Suspension().Suspend()
			require.ErrorIs(t, err, core.ErrDeadlock)
			assert.False(t, done)
			require.NoError(t, l.Close())
			assert.True(t, done)
			assert.ErrorIs(t, fiberErr, core.ErrLoopClosed)
		}},

		// From DriverSuspension::throw(): Suspend returns the thrown error,
		// in main and in a fiber.
		{Name: "SuspensionThrow", Fn: func(t *testing.T, l *core.Loop) {
			boom := errors.New("thrown")
			s := l.Suspension()
			l.Defer(func(core.CallbackID) { s.Throw(boom) })
			v, err := s.Suspend()
			assert.Nil(t, v)
			assert.Equal(t, boom, err)

			var got error
			l.Defer(func(core.CallbackID) {
				fs := l.Suspension()
				l.Defer(func(core.CallbackID) { fs.Throw(boom) })
				_, got = fs.Suspend()
			})
			require.NoError(t, l.Run())
			assert.Equal(t, boom, got)
		}},

		// From DriverSuspension::resume() and throw(): "Must call suspend()
		// before calling resume()" is a panic in Go; inside a callback it is
		// routed like any other panic.
		{Name: "ResumeWithoutSuspend", Fn: func(t *testing.T, l *core.Loop) {
			s := l.Suspension()
			rvRequirePanic(t, func() { s.Resume(nil) }, "suspend")
			rvRequirePanic(t, func() { s.Throw(errors.New("x")) }, "suspend")

			l.Defer(func(core.CallbackID) { l.Suspension().Resume(nil) })
			err := l.Run()
			var ue *core.UncaughtError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, core.TypeDefer, ue.Type)
			assert.Contains(t, strings.ToLower(ue.Error()), "suspend")
		}},

		// From AbstractDriver::getSuspension(): one suspension per fiber.
		{Name: "SuspensionIdentity", Fn: func(t *testing.T, l *core.Loop) {
			s := l.Suspension()
			require.NotNil(t, s)
			assert.Same(t, s, l.Suspension())
			var c1, c2 *core.Suspension
			l.Defer(func(core.CallbackID) {
				c1 = l.Suspension()
				c2 = l.Suspension()
			})
			require.NoError(t, l.Run())
			require.NotNil(t, c1)
			assert.Same(t, c1, c2)
			assert.NotSame(t, s, c1)
		}},

		// From AbstractDriver::isRunning(): true in callbacks and microtasks
		// only.
		{Name: "IsRunning", Fn: func(t *testing.T, l *core.Loop) {
			assert.False(t, l.IsRunning())
			var inCallback, inMicrotask bool
			l.Queue(func() { inMicrotask = l.IsRunning() })
			l.Defer(func(core.CallbackID) { inCallback = l.IsRunning() })
			require.NoError(t, l.Run())
			assert.True(t, inCallback)
			assert.True(t, inMicrotask)
			assert.False(t, l.IsRunning())
		}},

		// Revolt's drivers have no Close; Go's loop must have one, and a
		// second Close is a no-op, the way the runner's own Close relies on.
		{Name: "CloseTwice", Fn: func(t *testing.T, l *core.Loop) {
			l.Defer(rvNoop)
			require.NoError(t, l.Close())
			require.NoError(t, l.Close())
			assert.ErrorIs(t, l.Run(), core.ErrLoopClosed)
			assert.ErrorIs(t, l.Post(func() {}), core.ErrLoopClosed)
		}},
	}
}
