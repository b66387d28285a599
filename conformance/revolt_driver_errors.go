package conformance

import (
	"errors"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// driverErrorCases translates the tests of Revolt's DriverTest.php about
// exceptions thrown by callbacks: here, panics that come out of Run as
// *core.UncaughtError or go to the error handler.
func driverErrorCases() []Case {
	return []Case{
		// From testRethrowsFromCallbacks over the six kinds.
		{Name: "RethrowsFromCallbacks", Fn: func(t *testing.T, l *core.Loop) {
			rvEachKind(t, l, func(t *testing.T, k rvKind) {
				boom := errors.New("rethrow test")
				id := k.add(t, l, func(id core.CallbackID) {
					l.Cancel(id)
					panic(boom)
				})
				if k.typ == core.TypeSignal {
					l.Delay(10*time.Millisecond, func(core.CallbackID) { assert.NoError(t, rvRaise(rvSig1)) })
				}
				ue := rvRequireUncaught(t, l.Run(), boom)
				assert.Equal(t, id, ue.ID)
				assert.Equal(t, k.typ, ue.Type)
			})
		}},

		// From testStreamDoesntSwallowExceptions.
		{Name: "StreamDoesntSwallowExceptions", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			boom := errors.New("runtime exception")
			id := l.OnWritable(a, func(core.CallbackID, int) { panic(boom) })
			l.Delay(5*time.Millisecond, func(core.CallbackID) { l.Stop() })
			ue := rvRequireUncaught(t, l.Run(), boom)
			assert.Equal(t, core.TypeWritable, ue.Type)
			l.Cancel(id)
		}},

		// From testLoopAllowsExceptionToBubbleUpDuringStart.
		{Name: "LoopAllowsExceptionToBubbleUpDuringStart", Fn: func(t *testing.T, l *core.Loop) {
			boom := errors.New("loop error")
			id := l.Defer(func(core.CallbackID) { panic(boom) })
			ue := rvRequireUncaught(t, l.Run(), boom)
			assert.Equal(t, id, ue.ID)
			assert.Equal(t, core.TypeDefer, ue.Type)
		}},

		// From testLoopAllowsExceptionToBubbleUpFromRepeatingAlarmDuringStart.
		{Name: "LoopAllowsExceptionToBubbleUpFromRepeatingAlarmDuringStart", Fn: func(t *testing.T, l *core.Loop) {
			boom := errors.New("test")
			id := l.Repeat(time.Millisecond, func(core.CallbackID) { panic(boom) })
			ue := rvRequireUncaught(t, l.Run(), boom)
			assert.Equal(t, id, ue.ID)
			assert.Equal(t, core.TypeRepeat, ue.Type)
			l.Cancel(id)
		}},

		// From testErrorHandlerCapturesUncaughtException: ErrorHandler returns
		// what SetErrorHandler set, and with a handler Run does not fail.
		{Name: "ErrorHandlerCapturesUncaughtException", Fn: func(t *testing.T, l *core.Loop) {
			oldCalled := false
			l.SetErrorHandler(func(error) { oldCalled = true })
			old := l.ErrorHandler()
			require.NotNil(t, old)
			old(errors.New("probe")) // funcs do not compare; calling it tells which one it is
			assert.True(t, oldCalled)

			var got error
			l.SetErrorHandler(func(err error) { got = err })
			boom := errors.New("loop error")
			id := l.Defer(func(core.CallbackID) { panic(boom) })
			require.NoError(t, l.Run())
			ue := rvRequireUncaught(t, got, boom)
			assert.Equal(t, id, ue.ID)

			l.SetErrorHandler(nil)
			assert.Nil(t, l.ErrorHandler())
		}},

		// From testOnErrorFailure: a panic in the error handler comes out of
		// Run, with the handler's panic as the cause.
		{Name: "OnErrorFailure", Fn: func(t *testing.T, l *core.Loop) {
			errorception := errors.New("errorception")
			l.SetErrorHandler(func(error) { panic(errorception) })
			l.Delay(5*time.Millisecond, func(core.CallbackID) { panic(errors.New("error")) })
			ue := rvRequireUncaught(t, l.Run(), errorception)
			assert.Zero(t, ue.ID, "a panic in the error handler belongs to no callback")
			assert.Zero(t, ue.Type)
		}},

		// From testLoopException: a panic from a later tick, with a value
		// that is not an error (upstream checks the message names the
		// callback; here the fields do).
		{Name: "LoopException", Fn: func(t *testing.T, l *core.Loop) {
			var inner core.CallbackID
			l.Defer(func(core.CallbackID) {
				inner = l.Defer(func(core.CallbackID) { panic("test") })
			})
			err := l.Run()
			var ue *core.UncaughtError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, "test", ue.Value)
			assert.Nil(t, ue.Unwrap())
			assert.Contains(t, ue.Error(), "test")
			assert.Equal(t, inner, ue.ID)
			assert.Equal(t, core.TypeDefer, ue.Type)
			assert.NotEmpty(t, ue.Stack)
		}},

		// From testUncaughtThrowableInstanceIsRethrownAsIs.
		{Name: "UncaughtThrowableInstanceIsRethrownAsIs", Fn: func(t *testing.T, l *core.Loop) {
			want := &core.UncaughtError{Value: errors.New("Test error")}
			l.Queue(func() { panic(want) })
			_, err := l.Suspension().Suspend()
			var got *core.UncaughtError
			require.ErrorAs(t, err, &got)
			assert.Same(t, want, got)
		}},

		// From testUncaughtThrowableInstanceIsRethrownAsIsFromErrorHandler.
		{Name: "UncaughtThrowableInstanceIsRethrownAsIsFromErrorHandler", Fn: func(t *testing.T, l *core.Loop) {
			want := &core.UncaughtError{Value: errors.New("Test error")}
			l.SetErrorHandler(func(error) { panic(want) })
			l.Queue(func() { panic(errors.New("ignored")) })
			_, err := l.Suspension().Suspend()
			var got *core.UncaughtError
			require.ErrorAs(t, err, &got)
			assert.Same(t, want, got)
		}},

		// From testMicrotaskThrowingStillExecutesNextMicrotask: the panic
		// ends Run before the next microtask, which the next Run executes.
		{Name: "MicrotaskThrowingStillExecutesNextMicrotask", Fn: func(t *testing.T, l *core.Loop) {
			boom := errors.New("microtask")
			invoked := false
			l.Queue(func() { panic(boom) })
			l.Queue(func() { invoked = true })
			ue := rvRequireUncaught(t, l.Run(), boom)
			assert.Zero(t, ue.ID, "a microtask is no callback")
			assert.False(t, invoked)
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},
	}
}
