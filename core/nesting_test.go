package core_test

import (
	"testing"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/drainrule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The three nesting cases that upstream says fail without the rule, run
// with the rule switched off: each must fail, for the right reason. (With
// the rule they pass: package conformance runs them on every driver; the
// tests below also run them with the rule on, as a control.)

// nestedLoop makes a loop with the rule switched off (nesting) through the
// seam the bench command uses, or on.
func nestedLoop(t *testing.T, nesting bool) *core.Loop {
	d := newTimerDriver()
	var drv core.Driver = d
	if nesting {
		drv = drainrule.Off(d)
	}
	l := core.New(drv)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if l.Driver() != core.Driver(d) {
		t.Fatalf("Driver() = %T, want the wrapped driver itself", l.Driver())
	}
	return l
}

func TestRuleOffQueueFibersNest(t *testing.T) {
	for _, n := range []int{10, 100} {
		off := conformance.ScenarioQueueFibers(nestedLoop(t, true), n)
		on := conformance.ScenarioQueueFibers(nestedLoop(t, false), n)
		assertNesting(t, off, on)
	}
}

func TestRuleOffCallbackFibersNest(t *testing.T) {
	for _, n := range []int{10, 100} {
		off := conformance.ScenarioCallbackFibers(nestedLoop(t, true), n)
		on := conformance.ScenarioCallbackFibers(nestedLoop(t, false), n)
		assertNesting(t, off, on)
	}
}

// assertNesting: without the rule the depth grows by a constant per fiber,
// the previous fiber is still running when the next goes on, and resumed
// fibers stay parked after Run (in Go: leaked goroutines, until Close).
func assertNesting(t *testing.T, off, on *conformance.Resumed) {
	t.Helper()
	require.NoError(t, off.RunErr)
	require.Equal(t, off.N, off.Resumed)
	step := off.Depths[1] - off.Depths[0]
	assert.Positive(t, step, "depth grows without the rule")
	for i := 1; i < off.N; i++ {
		assert.Equal(t, off.Depths[0]+i*step, off.Depths[i], "depth of fiber %d", i)
		assert.False(t, off.PrevFinished(i), "fiber %d-1 still running", i)
	}
	assert.GreaterOrEqual(t, off.LiveEnd, off.N-1, "resumed fibers left parked after Run")

	require.NoError(t, on.RunErr)
	for i := 1; i < on.N; i++ {
		assert.Equal(t, on.Depths[0], on.Depths[i])
		assert.True(t, on.PrevFinished(i))
	}
	assert.Zero(t, on.LiveEnd)
}

func TestRuleOffLaterCallbacksRunOnResumedFiber(t *testing.T) {
	off := conformance.ScenarioQueueFiberLeavesCallbacks(nestedLoop(t, true))
	require.NoError(t, off.RunErr)
	assert.Equal(t, []string{"D1", "A resumed", "D2"}, off.Log)
	assert.Equal(t, off.A, off.D2, "without the rule D2 runs on A's fiber")
	assert.NotEqual(t, off.D1, off.D2)
	assert.False(t, off.AFinishedAt2)

	on := conformance.ScenarioQueueFiberLeavesCallbacks(nestedLoop(t, false))
	assert.Equal(t, on.D1, on.D2)
	assert.True(t, on.AFinishedAt2)
}
