package conformance

import (
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// driverTestCases translates the reference-counting, enable/disable and
// registration tests of Revolt's test/Driver/DriverTest.php.
func driverTestCases() []Case {
	return []Case{
		// From testLoopTerminatesWithOnlyUnreferencedCallbacks: an
		// unreferenced fd watcher must not keep Run alive once the only
		// referenced callback (a long delay) is cancelled.
		{Name: "LoopTerminatesWithOnlyUnreferencedCallbacks", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			r := l.OnReadable(a, func(core.CallbackID, int) {})
			l.Unreference(r)
			w := l.Delay(10*time.Second, rvNoop)
			l.Defer(func(core.CallbackID) { l.Cancel(w) })
			start := time.Now()
			require.NoError(t, l.Run())
			assert.Less(t, time.Since(start), 5*time.Second, "Run waited for the cancelled delay")
			l.Cancel(r)
		}},

		// Upstream's checkForSignalCapability, a helper there, is a case
		// here: a loop that cannot watch signals says so with ErrUnsupported,
		// one that can hands out a signal callback.
		{Name: "SignalCapability", Fn: func(t *testing.T, l *core.Loop) {
			id, err := l.OnSignal(rvSig1, func(core.CallbackID, os.Signal) {})
			if err != nil {
				require.ErrorIs(t, err, core.ErrUnsupported)
				t.Skipf("the loop cannot watch signals: %v", err)
			}
			require.NotZero(t, id)
			typ, err := l.Type(id)
			require.NoError(t, err)
			assert.Equal(t, core.TypeSignal, typ)
			l.Cancel(id)
			assert.NotContains(t, l.Identifiers(), id)
		}},

		// From testCallbackUnrefRerefRunResult: reference() undoes any number
		// of unreference() calls.
		{Name: "CallbackUnrefRerefRunResult", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			id := l.Defer(func(core.CallbackID) { invoked = true })
			l.Unreference(id)
			l.Unreference(id)
			require.NoError(t, l.Reference(id))
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},

		// From testDeferCallbackUnrefRunResult.
		{Name: "DeferCallbackUnrefRunResult", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Unreference(l.Defer(func(core.CallbackID) { invoked = true }))
			require.NoError(t, l.Run())
			assert.False(t, invoked)
		}},

		// From testDelayCallbackUnrefRunResult.
		{Name: "DelayCallbackUnrefRunResult", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			id := l.Delay(2*time.Second, func(core.CallbackID) { invoked = true })
			l.Unreference(id)
			l.Unreference(id)
			require.NoError(t, l.Run())
			assert.False(t, invoked)
		}},

		// From testRepeatCallbackUnrefRunResult.
		{Name: "RepeatCallbackUnrefRunResult", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Unreference(l.Repeat(2*time.Second, func(core.CallbackID) { invoked = true }))
			require.NoError(t, l.Run())
			assert.False(t, invoked)
		}},

		// From testOnReadableCallbackUnrefRunResult. The fd is readable
		// already: Run must return before any tick, not after one.
		{Name: "OnReadableCallbackUnrefRunResult", Fn: func(t *testing.T, l *core.Loop) {
			a, b := rvSocketPair(t)
			require.NoError(t, rvWrite(b, []byte("x")))
			invoked := false
			id := l.OnReadable(a, func(core.CallbackID, int) { invoked = true })
			l.Unreference(id)
			require.NoError(t, l.Run())
			assert.False(t, invoked)
			l.Cancel(id)
		}},

		// From testOnWritableCallbackKeepAliveRunResult.
		{Name: "OnWritableCallbackKeepAliveRunResult", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			invoked := false
			id := l.OnWritable(a, func(core.CallbackID, int) { invoked = true })
			l.Unreference(id)
			require.NoError(t, l.Run())
			assert.False(t, invoked)
			l.Cancel(id)
		}},

		// From testOnSignalCallbackKeepAliveRunResult: a signal watcher is
		// referenced by default, so Run lasts until an unreferenced delay
		// unreferences it.
		{Name: "OnSignalCallbackKeepAliveRunResult", Fn: func(t *testing.T, l *core.Loop) {
			rvSignalCapability(t, l)
			id, err := l.OnSignal(rvSig1, func(core.CallbackID, os.Signal) {})
			require.NoError(t, err)
			invoked := false
			l.Unreference(l.Delay(10*time.Millisecond, func(core.CallbackID) {
				invoked = true
				l.Unreference(id)
			}))
			require.NoError(t, l.Run())
			assert.True(t, invoked)
			l.Cancel(id)
		}},

		// From testUnreferencedDeferredCallbackStillExecutes: unreferencing
		// decides whether Run waits, not whether a due callback runs.
		{Name: "UnreferencedDeferredCallbackStillExecutes", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Unreference(l.Defer(func(core.CallbackID) { invoked = true }))
			l.Defer(rvNoop)
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},

		// From testDisabledDeferReenableInSubsequentTick.
		{Name: "DisabledDeferReenableInSubsequentTick", Fn: func(t *testing.T, l *core.Loop) {
			var out rvLog
			id := l.Defer(func(core.CallbackID) { out.print("3") })
			l.Disable(id)
			l.Defer(func(core.CallbackID) {
				assert.NoError(t, l.Enable(id))
				out.print("2")
			})
			out.print("1")
			require.NoError(t, l.Run())
			assert.Equal(t, "123", out.String())
		}},

		// From testDisableWithConsecutiveCancel over the six kinds.
		{Name: "DisableWithConsecutiveCancel", Fn: func(t *testing.T, l *core.Loop) {
			rvEachKind(t, l, func(t *testing.T, k rvKind) {
				invoked := false
				id := k.add(t, l, rvNoop)
				l.Disable(id)
				l.Defer(func(core.CallbackID) {
					l.Cancel(id)
					invoked = true
				})
				assert.False(t, invoked)
				require.NoError(t, l.Run())
				assert.True(t, invoked)
				_, err := l.IsEnabled(id)
				rvRequireInvalid(t, err, id)
			})
		}},

		// From testCallbackReferenceInfo over the six kinds: referencing and
		// enabling are independent, idempotent flags, and a cancelled id is
		// unknown.
		{Name: "CallbackReferenceInfo", Fn: func(t *testing.T, l *core.Loop) {
			rvEachKind(t, l, func(t *testing.T, k rvKind) {
				state := func(id core.CallbackID) (enabled, referenced bool) {
					t.Helper()
					enabled, err := l.IsEnabled(id)
					require.NoError(t, err)
					referenced, err = l.IsReferenced(id)
					require.NoError(t, err)
					return enabled, referenced
				}
				requireState := func(id core.CallbackID, enabled, referenced bool) {
					t.Helper()
					e, r := state(id)
					require.Equal(t, enabled, e, "enabled")
					require.Equal(t, referenced, r, "referenced")
				}

				id1 := k.add(t, l, rvNoop)
				requireState(id1, true, true)

				id2 := k.add(t, l, rvNoop)
				require.NoError(t, l.Reference(id2))
				require.NoError(t, l.Reference(id2))
				requireState(id1, true, true)
				requireState(id2, true, true)

				l.Disable(id2)
				l.Disable(id2)
				l.Disable(id2)
				requireState(id1, true, true)
				requireState(id2, false, true)

				require.NoError(t, l.Enable(id2))
				require.NoError(t, l.Enable(id2))
				requireState(id1, true, true)
				requireState(id2, true, true)

				l.Cancel(id2)
				requireState(id1, true, true)
				_, err := l.IsReferenced(id2)
				rvRequireInvalid(t, err, id2)
				_, err = l.IsEnabled(id2)
				rvRequireInvalid(t, err, id2)

				id2 = k.add(t, l, rvNoop)
				l.Unreference(id2)
				requireState(id2, true, false)

				l.Cancel(id1)
				l.Cancel(id2)
			})
		}},

		// From testCallbackRegistrationAndCancellationInfo over the six kinds.
		{Name: "CallbackRegistrationAndCancellationInfo", Fn: func(t *testing.T, l *core.Loop) {
			rvEachKind(t, l, func(t *testing.T, k rvKind) {
				id := k.add(t, l, rvNoop)
				require.NotZero(t, id)
				typ, err := l.Type(id)
				require.NoError(t, err)
				assert.Equal(t, k.typ, typ)

				// Enabling an enabled callback and disabling a disabled one
				// must have no side effects.
				require.NoError(t, l.Enable(id))
				enabled, err := l.IsEnabled(id)
				require.NoError(t, err)
				assert.True(t, enabled)
				l.Disable(id)
				l.Disable(id)
				enabled, err = l.IsEnabled(id)
				require.NoError(t, err)
				assert.False(t, enabled)

				l.Cancel(id)
				assert.NotContains(t, l.Identifiers(), id)

				id2 := k.add(t, l, rvNoop)
				assert.NotEqual(t, id, id2, "a cancelled id was issued again")
				assert.Contains(t, l.Identifiers(), id2)
				l.Cancel(id2)
			})
		}},

		// From testEnablingAllowsSubsequentInvocation.
		{Name: "EnablingAllowsSubsequentInvocation", Fn: func(t *testing.T, l *core.Loop) {
			increment := 0
			id := l.Defer(func(core.CallbackID) { increment++ })
			l.Disable(id)
			l.Delay(5*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.Equal(t, 0, increment)
			require.NoError(t, l.Enable(id))
			l.Delay(5*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.Equal(t, 1, increment)
		}},

		// From testUnresolvedEventsAreReenabledOnRunFollowingPreviousStop:
		// Stop ends one Run only; what was pending runs in the next.
		{Name: "UnresolvedEventsAreReenabledOnRunFollowingPreviousStop", Fn: func(t *testing.T, l *core.Loop) {
			increment := 0
			l.Defer(func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			l.Defer(func(core.CallbackID) {
				l.Delay(20*time.Millisecond, func(core.CallbackID) {
					increment++
					l.Stop()
				})
			})
			assert.Equal(t, 0, increment)
			time.Sleep(5 * time.Millisecond) // time passing between two Runs must not matter
			require.NoError(t, l.Run())
			assert.Equal(t, 1, increment)
		}},

		// From testDisablingPreventsSubsequentInvocation.
		{Name: "DisablingPreventsSubsequentInvocation", Fn: func(t *testing.T, l *core.Loop) {
			increment := 0
			id := l.Defer(func(core.CallbackID) { increment++ })
			l.Disable(id)
			l.Delay(5*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.Equal(t, 0, increment)
		}},

		// From testCancelRemovesCallback.
		{Name: "CancelRemovesCallback", Fn: func(t *testing.T, l *core.Loop) {
			invoked, fired := false, false
			id := l.Delay(10*time.Millisecond, func(core.CallbackID) { fired = true })
			l.Defer(func(core.CallbackID) {
				l.Cancel(id)
				invoked = true
			})
			l.Delay(20*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.True(t, invoked)
			assert.False(t, fired, "callback was not cancelled")
		}},

		// From testInitiallyDisabledWrite.
		{Name: "InitiallyDisabledWrite", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			increment := 0
			id := l.OnWritable(a, func(core.CallbackID, int) { increment++ })
			l.Disable(id)
			l.Delay(5*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.Equal(t, 0, increment)
			l.Cancel(id)
		}},

		// From testInitiallyDisabledWriteIsTriggeredOnceEnabled.
		{Name: "InitiallyDisabledWriteIsTriggeredOnceEnabled", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			var out rvLog
			id := l.OnWritable(a, func(core.CallbackID, int) {
				out.print("2")
				l.Stop()
			})
			l.Disable(id)
			l.Defer(func(core.CallbackID) {
				assert.NoError(t, l.Enable(id))
				out.print("1")
			})
			require.NoError(t, l.Run())
			assert.Equal(t, "12", out.String())
			l.Cancel(id)
		}},

		// From testDeferEnabledInNextTick: a Run that a defer stops is one
		// tick, a ready writable runs once per tick, and disabling and
		// enabling it between ticks changes nothing.
		{Name: "DeferEnabledInNextTick", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			tick := func() {
				t.Helper()
				l.Defer(func(core.CallbackID) { l.Stop() })
				require.NoError(t, l.Run())
			}
			invoked := 0
			id := l.OnWritable(a, func(core.CallbackID, int) { invoked++ })
			tick()
			tick()
			tick()
			l.Disable(id)
			require.NoError(t, l.Enable(id))
			tick()
			assert.Equal(t, 4, invoked)
			l.Cancel(id)
		}},

		// From testExceptionOnEnableNonexistentCallback.
		{Name: "ExceptionOnEnableNonexistentCallback", Fn: func(t *testing.T, l *core.Loop) {
			rvRequireInvalid(t, l.Enable(rvUnknownID), rvUnknownID)
		}},

		// From testSuccessOnDisableNonexistentCallback.
		{Name: "SuccessOnDisableNonexistentCallback", Fn: func(t *testing.T, l *core.Loop) {
			require.Nil(t, rvRecover(func() { l.Disable(rvUnknownID) }))
			assert.Empty(t, l.Identifiers())
		}},

		// From testSuccessOnCancelNonexistentCallback.
		{Name: "SuccessOnCancelNonexistentCallback", Fn: func(t *testing.T, l *core.Loop) {
			require.Nil(t, rvRecover(func() { l.Cancel(rvUnknownID) }))
			assert.Empty(t, l.Identifiers())
		}},

		// From testExceptionOnReferenceNonexistentCallback.
		{Name: "ExceptionOnReferenceNonexistentCallback", Fn: func(t *testing.T, l *core.Loop) {
			rvRequireInvalid(t, l.Reference(rvUnknownID), rvUnknownID)
		}},

		// From testSuccessOnUnreferenceNonexistentCallback.
		{Name: "SuccessOnUnreferenceNonexistentCallback", Fn: func(t *testing.T, l *core.Loop) {
			require.Nil(t, rvRecover(func() { l.Unreference(rvUnknownID) }))
			assert.Empty(t, l.Identifiers())
		}},

		// From testInvalidityOnDefer: a defer is forgotten before it runs,
		// so it cannot enable itself again. Upstream's exception is an error
		// return here.
		{Name: "InvalidityOnDefer", Fn: func(t *testing.T, l *core.Loop) {
			var err error
			id := l.Defer(func(id core.CallbackID) { err = l.Enable(id) })
			require.NoError(t, l.Run())
			rvRequireInvalid(t, err, id)
		}},

		// From testInvalidityOnDelay: likewise for a one-shot timer.
		{Name: "InvalidityOnDelay", Fn: func(t *testing.T, l *core.Loop) {
			var err error
			id := l.Delay(0, func(id core.CallbackID) { err = l.Enable(id) })
			require.NoError(t, l.Run())
			rvRequireInvalid(t, err, id)
		}},
	}
}
