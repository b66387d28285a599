package conformance

import (
	"fmt"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestingCases are the five cases of the non-nesting drain rule, named as
// in the upstream change (N = 10 upstream; 100 and 1000 too). Cases 1-3 fail
// without the rule; the core's tests show that, with the rule switched off.
func nestingCases() []Case {
	var cs []Case
	for _, n := range []int{10, 100, 1000} {
		cs = append(cs,
			Case{fmt.Sprintf("ResumedQueueFibersDoNotNestInEachOther/N=%d", n), func(t *testing.T, l *core.Loop) {
				assertNotNested(t, ScenarioQueueFibers(l, n))
			}},
			Case{fmt.Sprintf("ResumedCallbackFibersDoNotNestInEachOther/N=%d", n), func(t *testing.T, l *core.Loop) {
				assertNotNested(t, ScenarioCallbackFibers(l, n))
			}},
		)
	}
	return append(cs,
		Case{"ResumedQueueFiberLeavesCallbacksToCurrentCallbackFiber", func(t *testing.T, l *core.Loop) {
			r := ScenarioQueueFiberLeavesCallbacks(l)
			require.NoError(t, r.RunErr)
			assert.Equal(t, []string{"D1", "A resumed", "D2"}, r.Log)
			assert.Equal(t, r.D1, r.D2, "D1 and D2 run on the same callback fiber")
			assert.NotEqual(t, r.A, r.D2, "D2 must not run on A's fiber")
			assert.True(t, r.AFinishedAt2, "A's fiber had returned before D2 ran (live in D1 %d, in D2 %d)", r.LiveD1, r.LiveD2)
			assert.Zero(t, r.LiveEnd, "fibers live after Run")
		}},
		Case{"ResumedFibersKeepMicrotaskOrder", func(t *testing.T, l *core.Loop) {
			log, err := scenarioMicrotaskOrder(l)
			require.NoError(t, err)
			assert.Equal(t, []string{
				"fiber 0", "between 0", "fiber 1", "between 1", "fiber 2", "between 2",
				"after 0", "after 1", "after 2", "next tick",
			}, log)
		}},
		Case{"ExceptionFromResumedFiberStopsNextMicrotask", func(t *testing.T, l *core.Loop) {
			r := scenarioExceptionStops(l)
			require.True(t, r.UncaughtMatch, "first Run returns an *UncaughtError, got %v", r.FirstErr)
			assert.Equal(t, "boom", r.Uncaught.Value)
			assert.Contains(t, r.FirstErr.Error(), "boom")
			assert.False(t, r.FlagAfter1, "the microtask queued after the resume must not run before the panic comes out")
			assert.NoError(t, r.SecondErr)
			assert.True(t, r.FlagAfter2, "the second Run runs the microtask")
		}},
	)
}

func assertNotNested(t *testing.T, r *Resumed) {
	t.Helper()
	require.NoError(t, r.RunErr)
	require.Equal(t, r.N, r.Resumed, "every fiber resumed")
	assert.Equal(t, r.N, r.Distinct, "each closure ran on a fiber of its own")
	for i := 1; i < r.N; i++ {
		if r.Depths[i] != r.Depths[0] {
			t.Fatalf("fiber %d resumed at depth %d, fiber 0 at %d: resumed fibers nest", i, r.Depths[i], r.Depths[0])
		}
		if !r.PrevFinished(i) {
			t.Fatalf("fiber %d went on before fiber %d returned (live %d then %d)", i, i-1, r.Live[i-1], r.Live[i])
		}
	}
	assert.Zero(t, r.LiveEnd, "fibers live after Run")
}
