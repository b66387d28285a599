package core_test

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suspendAndResume defers n callbacks that each suspend until a later defer
// resumes them, so that n callback fibers are live at once; it returns the
// deepest ResumeDepth they saw once resumed.
func suspendAndResume(l *core.Loop, n int) *int {
	deepest := new(int)
	for range n {
		l.Defer(func(core.CallbackID) {
			s := l.Suspension()
			l.Defer(func(core.CallbackID) { s.Resume(nil) })
			_, _ = s.Suspend()
			*deepest = max(*deepest, l.ResumeDepth())
		})
	}
	return deepest
}

// The fiber pool keeps at most WithFiberPool's number of finished fibers'
// goroutines, and keeps them: after a run that ended more fibers than
// that, exactly that many are left.
func TestFiberPoolKeepsUpToItsSize(t *testing.T) {
	for _, size := range []int{0, 2} {
		l := newLoop(t, core.WithFiberPool(size))
		suspendAndResume(l, 4)
		require.NoError(t, l.Run())
		st := l.Stats()
		assert.Zero(t, st.FibersLive)
		assert.Greater(t, st.FibersStarted, uint64(size))
		assert.Equal(t, size, st.FiberGoroutines, "goroutines left with a pool of %d", size)
	}
}

// FibersStarted counts every fiber a run starts, the loop's own included:
// it grows with every run; MaxResumeDepth is the deepest resume chain a
// fiber saw.
func TestFiberStatsCountUp(t *testing.T) {
	l := newLoop(t)
	deepest := suspendAndResume(l, 2)
	require.NoError(t, l.Run())
	first := l.Stats()
	assert.Positive(t, first.FibersStarted)
	assert.Equal(t, *deepest, first.MaxResumeDepth)
	assert.Greater(t, first.MaxResumeDepth, 1, "a resumed fiber is more than one switch deep")
	suspendAndResume(l, 1)
	require.NoError(t, l.Run())
	assert.Greater(t, l.Stats().FibersStarted, first.FibersStarted, "fibers started by a second run")
}
