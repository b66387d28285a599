package conformance

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// driverTimerCases translates the timer tests of Revolt's DriverTest.php,
// and testNoMemoryLeak. Lower time bounds are strict (a timer never fires
// early); a timer firing late is no failure, as a loaded machine makes it
// so: where upstream bounds a wait from above to tell right from wrong,
// the case tells them apart by the order of two timers whose deadlines
// differ between the two (an order no load changes), and any other upper
// bound is a hang guard of seconds.
func driverTimerCases() []Case {
	return []Case{
		// From testCorrectTimeoutIfBlockingBeforeActivate: a deadline counts
		// from the Delay call, so blocking the rest of the tick does not push
		// it back (wrong would be delay+block). Upstream bounds the wait from
		// above; here a second timer, made at the end of the block, tells:
		// its deadline (block+later after start) falls after the first's if
		// the first counts from its Delay call (delay), before it if the
		// first counts from the end of the tick (block+delay).
		{Name: "CorrectTimeoutIfBlockingBeforeActivate", Fn: func(t *testing.T, l *core.Loop) {
			const delay, block, later = 300 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond
			var start, invoked time.Time
			var order []string
			l.Defer(func(core.CallbackID) {
				start = time.Now()
				l.Delay(delay, func(core.CallbackID) {
					invoked = time.Now()
					order = append(order, "delay")
				})
				time.Sleep(block) // a callback hogging the loop is what the case is about
				l.Delay(later, func(core.CallbackID) { order = append(order, "later") })
			})
			require.NoError(t, l.Run())
			require.False(t, invoked.IsZero(), "timer did not run")
			took := invoked.Sub(start)
			assert.GreaterOrEqual(t, took, delay)
			assert.Equal(t, []string{"delay", "later"}, order,
				"a Delay(%v) made %v before a Delay(%v) fired after it: its deadline counted from the end of the tick", delay, block, later)
			assert.Less(t, took, 10*(delay+block), "hang guard")
		}},

		// From testCorrectTimeoutIfBlockingBeforeDelay: a deadline counts
		// from the Delay call, not from the loop's creation or last tick.
		{Name: "CorrectTimeoutIfBlockingBeforeDelay", Fn: func(t *testing.T, l *core.Loop) {
			const block, delay = 100 * time.Millisecond, 200 * time.Millisecond
			var invoked time.Time
			start := time.Now()
			time.Sleep(block) // time that passes before the Delay call must not count
			l.Delay(delay, func(core.CallbackID) { invoked = time.Now() })
			require.NoError(t, l.Run())
			require.False(t, invoked.IsZero(), "timer did not run")
			took := invoked.Sub(start)
			assert.GreaterOrEqual(t, took, block+delay)
			assert.Less(t, took, 10*(block+delay))
		}},

		// From testLoopDoesNotBlockOnNegativeTimerExpiration: an overdue
		// timer makes a zero wait, not a negative one (which a driver reads
		// as "block until an event").
		{Name: "LoopDoesNotBlockOnNegativeTimerExpiration", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			l.Delay(time.Millisecond, func(core.CallbackID) { invoked = true })
			time.Sleep(10 * time.Millisecond) // the timer is overdue when Run starts
			start := time.Now()
			require.NoError(t, l.Run())
			assert.True(t, invoked)
			assert.Less(t, time.Since(start), 5*time.Second)
		}},

		// From testTimerIntervalCountedWhenNotRunning: time spent outside Run
		// counts toward a deadline (wrong would be a full delay after Run).
		// Upstream bounds the wait in Run from above; here a second timer,
		// made just before Run, tells: its deadline (outside+later after the
		// first's Delay call) falls after the first's (delay) if the time
		// outside counted, before it if the first counts from Run.
		{Name: "TimerIntervalCountedWhenNotRunning", Fn: func(t *testing.T, l *core.Loop) {
			const delay, outside, later = 500 * time.Millisecond, 400 * time.Millisecond, 300 * time.Millisecond
			var took time.Duration
			var order []string
			made := time.Now()
			l.Delay(delay, func(core.CallbackID) {
				took = time.Since(made)
				order = append(order, "delay")
			})
			time.Sleep(outside) // the loop is not running meanwhile
			l.Delay(later, func(core.CallbackID) { order = append(order, "later") })
			require.NoError(t, l.Run())
			require.NotZero(t, took, "timer did not run")
			assert.GreaterOrEqual(t, took, delay)
			assert.Equal(t, []string{"delay", "later"}, order,
				"a Delay(%v) made %v before a Delay(%v) fired after it: the time outside Run did not count", delay, outside, later)
		}},

		// From testShortTimerDoesNotBlockOtherTimers: a zero-interval repeat
		// runs once per tick, so a due delay still gets its turn.
		{Name: "ShortTimerDoesNotBlockOtherTimers", Fn: func(t *testing.T, l *core.Loop) {
			i := 0
			stopped := false
			l.Repeat(0, func(core.CallbackID) {
				i++
				time.Sleep(2 * time.Millisecond) // each tick takes a while
			})
			l.Delay(2*time.Millisecond, func(core.CallbackID) {
				stopped = true
				l.Stop()
			})
			require.NoError(t, l.Run())
			assert.True(t, stopped)
			assert.Less(t, i, 5, "loop continues with repeat callback")
		}},

		// From testTwoShortRepeatTimersWorkAsExpected: two zero-interval
		// repeats alternate instead of one starving the other.
		{Name: "TwoShortRepeatTimersWorkAsExpected", Fn: func(t *testing.T, l *core.Loop) {
			var j, k int
			counter := func(dst *int) func(core.CallbackID) {
				i := 0
				return func(core.CallbackID) {
					i++
					if i == 5 {
						l.Stop()
					}
					*dst = i
				}
			}
			l.Repeat(0, counter(&j))
			l.Repeat(0, counter(&k))
			require.NoError(t, l.Run())
			assert.NotZero(t, j)
			assert.Less(t, max(j-k, k-j), 2)
		}},

		// From testLargeDelayTimer: the largest Duration must not overflow
		// into a deadline in the past.
		{Name: "LargeDelayTimer", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			id := l.Delay(time.Duration(math.MaxInt64), func(core.CallbackID) { invoked = true })
			l.Delay(2*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.False(t, invoked)
			l.Cancel(id)
		}},

		// From testLargeRepeatTimer.
		{Name: "LargeRepeatTimer", Fn: func(t *testing.T, l *core.Loop) {
			invoked := false
			id := l.Repeat(time.Duration(math.MaxInt64), func(core.CallbackID) { invoked = true })
			l.Delay(2*time.Millisecond, func(core.CallbackID) { l.Stop() })
			require.NoError(t, l.Run())
			assert.False(t, invoked)
			l.Cancel(id)
		}},

		// From testNoMemoryLeak over the six kinds. Go has no
		// memory_get_usage worth comparing; what would leak here is what the
		// loop keeps of cancelled callbacks (Identifiers), fibers (FibersLive)
		// and goroutines (the runner checks those). Like upstream, a warm-up
		// round comes first and the second must not grow anything.
		{Name: "NoMemoryLeak", Fn: func(t *testing.T, l *core.Loop) {
			tc := t
			rvEachKind(t, l, func(t *testing.T, k rvKind) {
				churn := rvChurn(t, tc, l, k)
				churn()
				live := l.Stats().FibersLive
				churn()
				assert.Empty(t, l.Identifiers())
				assert.LessOrEqual(t, l.Stats().FibersLive, live)
			})
		}},
	}
}

// rvChurnRuns is upstream's $runs, scaled down from 2000: the signal round
// trips dominate the time.
const rvChurnRuns = 200

// rvChurn returns one round of testNoMemoryLeak's callback churn for kind k:
// register, cancel, disable, let run, and then a chain of callbacks that
// each register their successor.
func rvChurn(t, tc *testing.T, l *core.Loop, k rvKind) func() {
	add := func(fn func(core.CallbackID)) core.CallbackID { return k.add(t, l, fn) }
	// Upstream registers every fd callback on STDIN or STDOUT; one ready
	// fd for all of them keeps the fd count down.
	switch k.typ {
	case core.TypeReadable:
		a, b := rvSocketPairOwned(t, tc)
		require.NoError(t, rvWrite(b, []byte(".")))
		add = func(fn func(core.CallbackID)) core.CallbackID {
			return l.OnReadable(a, func(id core.CallbackID, _ int) { fn(id) })
		}
	case core.TypeWritable:
		a, _ := rvSocketPairOwned(t, tc)
		add = func(fn func(core.CallbackID)) core.CallbackID {
			return l.OnWritable(a, func(id core.CallbackID, _ int) { fn(id) })
		}
	}
	register := func() []core.CallbackID {
		ids := make([]core.CallbackID, rvChurnRuns)
		for i := range ids {
			ids[i] = add(rvNoop)
		}
		return ids
	}
	cancelAll := func(ids []core.CallbackID) func(core.CallbackID) {
		return func(core.CallbackID) {
			for _, id := range ids {
				l.Cancel(id)
			}
		}
	}

	return func() {
		cancelAll(register())(0)
		for _, id := range register() {
			l.Disable(id)
			l.Cancel(id)
		}
		ids := register()
		switch k.typ {
		case core.TypeRepeat:
			l.Delay(7*time.Millisecond, cancelAll(ids))
		case core.TypeReadable, core.TypeWritable, core.TypeSignal:
			l.Defer(cancelAll(ids))
		}
		require.NoError(t, l.Run())
		assert.Empty(t, l.Identifiers())

		left := rvChurnRuns
		switch k.typ {
		case core.TypeDefer:
			var fn func(core.CallbackID)
			fn = func(core.CallbackID) {
				if left > 0 {
					left--
					l.Defer(fn)
				}
			}
			l.Defer(fn)
		case core.TypeDelay:
			var fn func(core.CallbackID)
			fn = func(core.CallbackID) {
				if left > 0 {
					left--
					l.Delay(0, fn)
				}
			}
			l.Delay(0, fn)
		case core.TypeRepeat:
			var fn func(core.CallbackID)
			fn = func(id core.CallbackID) {
				l.Cancel(id)
				if left > 0 {
					left--
					l.Repeat(0, fn)
				}
			}
			l.Repeat(0, fn)
		case core.TypeReadable, core.TypeWritable:
			// Every step uses a fresh socketpair, so fd numbers are reused
			// while the previous ones' callbacks are barely gone.
			var fn func(core.CallbackID, int)
			fn = func(id core.CallbackID, fd int) {
				l.Cancel(id)
				if fd >= 0 {
					assert.NoError(t, rvWrite(fd, []byte(".")))
				}
				if left == 0 {
					return
				}
				left--
				a, b, err := rvRawSocketPair()
				if !assert.NoError(t, err) {
					return
				}
				l.OnWritable(a, fn)
				l.OnReadable(b, func(id core.CallbackID, _ int) {
					l.Cancel(id)
					// The writable callback on a cancelled itself before
					// writing, so nothing watches the pair any more.
					assert.NoError(t, rvClose(a))
					assert.NoError(t, rvClose(b))
				})
			}
			l.Defer(func(core.CallbackID) { fn(0, -1) })
		case core.TypeSignal:
			send := func(core.CallbackID) { assert.NoError(t, rvRaise(rvSig1)) }
			var fn func(core.CallbackID, os.Signal)
			fn = func(id core.CallbackID, _ os.Signal) {
				if left > 0 {
					left--
					_, err := l.OnSignal(rvSig1, fn)
					assert.NoError(t, err)
					l.Delay(0, send)
				}
				l.Cancel(id)
			}
			l.Defer(func(core.CallbackID) {
				_, err := l.OnSignal(rvSig1, fn)
				assert.NoError(t, err)
				l.Delay(0, send)
			})
		}
		require.NoError(t, l.Run())
		assert.Zero(t, left, "the chain stopped early")
		assert.Empty(t, l.Identifiers())
	}
}
