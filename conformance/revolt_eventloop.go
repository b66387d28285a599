package conformance

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eventLoopTestCases translates Revolt's test/EventLoopTest.php: the static
// facade's tests, most of them about suspensions. The facade's global loop is
// the case's loop here.
func eventLoopTestCases() []Case {
	return []Case{
		// From testDelayWithNegativeDelay: a programmer error, so a panic
		// that names the problem, and nothing registered.
		{Name: "DelayWithNegativeDelay", Fn: func(t *testing.T, l *core.Loop) {
			rvRequirePanic(t, func() { l.Delay(-1, rvNoop) }, "delay", "negative")
			assert.Empty(t, l.Identifiers())
		}},

		// From testRepeatWithNegativeInterval.
		{Name: "RepeatWithNegativeInterval", Fn: func(t *testing.T, l *core.Loop) {
			rvRequirePanic(t, func() { l.Repeat(-1, rvNoop) }, "interval", "repeat", "negative")
			assert.Empty(t, l.Identifiers())
		}},

		// From testOnReadable (EventLoopTest's): main suspends until a
		// readable callback resumes it.
		{Name: "EventLoopOnReadable", Fn: func(t *testing.T, l *core.Loop) {
			a, b := rvSocketPair(t)
			require.NoError(t, rvWrite(a, []byte("trigger readability callback")))
			count := 0
			s := l.Suspension()
			l.OnReadable(b, func(id core.CallbackID, _ int) {
				l.Cancel(id)
				count++
				s.Resume(nil)
			})
			_, err := s.Suspend()
			require.NoError(t, err)
			assert.Equal(t, 1, count)
		}},

		// From testOnWritable (EventLoopTest's).
		{Name: "EventLoopOnWritable", Fn: func(t *testing.T, l *core.Loop) {
			a, _ := rvSocketPair(t)
			count := 0
			s := l.Suspension()
			l.OnWritable(a, func(id core.CallbackID, _ int) {
				l.Cancel(id)
				count++
				s.Resume(nil)
			})
			_, err := s.Suspend()
			require.NoError(t, err)
			assert.Equal(t, 1, count)
		}},

		// From testGet: the loop exposes the driver it runs on.
		{Name: "Get", Fn: func(t *testing.T, l *core.Loop) {
			d := l.Driver()
			require.NotNil(t, d)
			assert.NotEmpty(t, d.Name())
		}},

		// From testReflection.
		{Name: "Reflection", Fn: func(t *testing.T, l *core.Loop) {
			require.Empty(t, l.Identifiers())
			id := l.Delay(5*time.Second, rvNoop)
			assert.Equal(t, []core.CallbackID{id}, l.Identifiers())
			typ, err := l.Type(id)
			require.NoError(t, err)
			assert.Equal(t, core.TypeDelay, typ)
			requireState := func(enabled, referenced bool) {
				t.Helper()
				e, err := l.IsEnabled(id)
				require.NoError(t, err)
				r, err := l.IsReferenced(id)
				require.NoError(t, err)
				assert.Equal(t, enabled, e, "enabled")
				assert.Equal(t, referenced, r, "referenced")
			}
			requireState(true, true)
			l.Disable(id)
			requireState(false, true)
			l.Unreference(id)
			requireState(false, false)
			require.NoError(t, l.Enable(id))
			requireState(true, false)
			require.NoError(t, l.Reference(id))
			requireState(true, true)
			l.Cancel(id)
			assert.Empty(t, l.Identifiers())
			_, err = l.Type(id)
			rvRequireInvalid(t, err, id)
		}},

		// From testRun.
		{Name: "Run", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Defer(func(core.CallbackID) { invoked = true })
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},

		// From testFiberReuse: callbacks that do not suspend share one fiber.
		{Name: "FiberReuse", Fn: func(t *testing.T, l *core.Loop) {
			var fiber1, fiber2 uint64
			l.Defer(func(core.CallbackID) { fiber1 = l.FiberID() })
			l.Defer(func(core.CallbackID) { fiber2 = l.FiberID() })
			require.NoError(t, l.Run())
			assert.NotZero(t, fiber1, "callbacks run outside main")
			assert.Equal(t, fiber1, fiber2)
		}},

		// From testRunInFiber: upstream throws "The event loop is already
		// running" out of the nested run; here the nested Run returns
		// ErrLoopRunning and the outer Run carries on.
		{Name: "RunInFiber", Fn: func(t *testing.T, l *core.Loop) {
			ran := false
			var inner error
			l.Queue(func() {
				ran = true
				inner = l.Run()
			})
			require.NoError(t, l.Run())
			require.True(t, ran)
			assert.ErrorIs(t, inner, core.ErrLoopRunning)
		}},

		// From testRunAfterSuspension: a main Suspend leaves the loop ready
		// for Run.
		{Name: "RunAfterSuspension", Fn: func(t *testing.T, l *core.Loop) {
			s := l.Suspension()
			l.Defer(func(core.CallbackID) { s.Resume("test") })
			v, err := s.Suspend()
			require.NoError(t, err)
			assert.Equal(t, "test", v)
			invoked := false
			l.Defer(func(core.CallbackID) { invoked = true })
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},

		// From testSuspensionAfterRun.
		{Name: "SuspensionAfterRun", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Defer(func(core.CallbackID) { invoked = true })
			require.NoError(t, l.Run())
			assert.True(t, invoked)
			s := l.Suspension()
			l.Defer(func(core.CallbackID) { s.Resume("test") })
			v, err := s.Suspend()
			require.NoError(t, err)
			assert.Equal(t, "test", v)
		}},

		// From testSuspensionWithinFiber.
		{Name: "SuspensionWithinFiber", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Queue(func() {
				s := l.Suspension()
				l.Defer(func(core.CallbackID) { s.Resume("test") })
				v, err := s.Suspend()
				assert.NoError(t, err)
				assert.Equal(t, "test", v)
				invoked = true
			})
			require.NoError(t, l.Run())
			assert.True(t, invoked)
		}},

		// From testDoubleResumeWithinFiber: the second Resume panics, and
		// that uncaught panic, not the first value, ends the main Suspend.
		{Name: "DoubleResumeWithinFiber", Fn: func(t *testing.T, l *core.Loop) {
			s := l.Suspension()
			l.Queue(func() {
				s.Resume(nil)
				s.Resume(nil)
			})
			_, err := s.Suspend()
			var ue *core.UncaughtError
			require.ErrorAs(t, err, &ue)
			assert.Contains(t, strings.ToLower(ue.Error()), "suspend", "the panic should name the misuse")
		}},

		// From testSuspensionWithinCallback.
		{Name: "SuspensionWithinCallback", Fn: func(t *testing.T, l *core.Loop) {
			const send = 42
			var received any
			l.Defer(func(core.CallbackID) {
				s := l.Suspension()
				l.Defer(func(core.CallbackID) { s.Resume(send) })
				var err error
				received, err = s.Suspend()
				assert.NoError(t, err)
			})
			require.NoError(t, l.Run())
			assert.Equal(t, send, received)
		}},

		// From testSuspensionWithinCallbackGarbageCollection: upstream
		// compares memory every 250 rounds; what would grow here is the
		// number of live fibers.
		{Name: "SuspensionWithinCallbackGarbageCollection", Fn: func(t *testing.T, l *core.Loop) {
			const rounds = 2000
			i, live := 0, -1
			l.Repeat(0, func(id core.CallbackID) {
				s := l.Suspension()
				l.Defer(func(core.CallbackID) { s.Resume(nil) })
				_, err := s.Suspend()
				assert.NoError(t, err)
				if i++; i%250 == 0 {
					n := l.Stats().FibersLive
					if i > 500 {
						assert.Equal(t, live, n, "live fibers after %d rounds", i)
					}
					live = n
				}
				if i == rounds {
					l.Cancel(id)
				}
			})
			require.NoError(t, l.Run())
			assert.Equal(t, rounds, i)
		}},

		// From testSuspensionWithinCallbackGarbageCollectionSuspended: PHP's
		// garbage collector destroys the fiber that is never resumed and runs
		// its finally block; in Go, Close unwinds it, its deferred calls run
		// and its Suspend returns ErrLoopClosed.
		{Name: "SuspensionWithinCallbackGarbageCollectionSuspended", Fn: func(t *testing.T, l *core.Loop) {
			finally := false
			var err error
			l.Defer(func(core.CallbackID) {
				defer func() { finally = true }()
				_, err = l.Suspension().Suspend()
			})
			require.NoError(t, l.Run())
			assert.False(t, finally, "the fiber finished without being resumed")
			require.NoError(t, l.Close())
			assert.True(t, finally)
			assert.ErrorIs(t, err, core.ErrLoopClosed)
		}},

		// From testSuspensionWithinQueue.
		{Name: "SuspensionWithinQueue", Fn: func(t *testing.T, l *core.Loop) {
			const send = 42
			var received any
			l.Queue(func() {
				s := l.Suspension()
				l.Defer(func(core.CallbackID) { s.Resume(send) })
				var err error
				received, err = s.Suspend()
				assert.NoError(t, err)
			})
			require.NoError(t, l.Run())
			assert.Equal(t, send, received)
		}},

		// From testSuspensionThrowingErrorViaInterrupt: once an uncaught panic
		// ended a main Suspend, that suspension ignores Resume and Throw,
		// refuses to Suspend again, and a fresh one works.
		{Name: "SuspensionThrowingErrorViaInterrupt", Fn: func(t *testing.T, l *core.Loop) {
			rvSuspensionThrowingErrorViaInterrupt(t, l, false)
		}},

		// From testSuspensionThrowingErrorViaInterrupt2: the same, with a
		// Resume of the dead suspension still queued when the fresh one
		// suspends.
		{Name: "SuspensionThrowingErrorViaInterrupt2", Fn: func(t *testing.T, l *core.Loop) {
			rvSuspensionThrowingErrorViaInterrupt(t, l, true)
		}},
	}
}

func rvSuspensionThrowingErrorViaInterrupt(t *testing.T, l *core.Loop, resumeQueued bool) {
	s := l.Suspension()
	boom := errors.New("Test error")
	l.Queue(func() { panic(boom) })
	if resumeQueued {
		l.Queue(func() { s.Resume(123) })
	}
	_, err := s.Suspend()
	rvRequireUncaught(t, err, boom)

	assert.Nil(t, rvRecover(func() { s.Resume(nil) }), "Resume of a dead main suspension must be ignored")
	assert.Nil(t, rvRecover(func() { s.Throw(errors.New("ignored")) }), "Throw of a dead main suspension must be ignored")

	p := rvRecover(func() { _, err = s.Suspend() })
	require.Nil(t, p, "Suspend of a dead main suspension must return an error, not panic: %v", p)
	require.Error(t, err)
	assert.Contains(t, strings.ToLower(err.Error()), "uncaught", "the error should say why the suspension is dead")

	// Re-entering the loop with a fresh suspension, as a shutdown function
	// would, must work.
	s2 := l.Suspension()
	assert.NotSame(t, s, s2)
	l.Queue(func() { s2.Resume(321) })
	v, err := s2.Suspend()
	require.NoError(t, err)
	assert.Equal(t, 321, v)
}
