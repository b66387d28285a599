package core_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The callback fiber drains microtasks on two paths, with the watchdog on
// and off (drain.go); the rules of the drain hold on both.
var drainPaths = []struct {
	name string
	opts []core.Option
}{
	{"plain", nil},
	// A threshold no run here reaches: the watched path, no report.
	{"watched", []core.Option{core.WithWatchdog(time.Hour, func(core.SlowCallback) {})}},
}

// The callback fiber's locals are cleared after every callback and every
// microtask: the next run on it sees none of them. Each microtask counts
// in Metrics.
func TestDrainClearsFiberLocalsAfterEveryRun(t *testing.T) {
	for _, p := range drainPaths {
		t.Run(p.name, func(t *testing.T) {
			l := newLoop(t, p.opts...)
			fl := core.NewFiberLocal[string](nil)
			var seen []string
			l.Defer(func(core.CallbackID) {
				fl.Set(l, "callback")
				l.Queue(func() {
					seen = append(seen, "microtask saw "+fl.Get(l))
					fl.Set(l, "microtask")
				})
				l.Queue(func() { seen = append(seen, "next microtask saw "+fl.Get(l)) })
			})
			l.Defer(func(core.CallbackID) { seen = append(seen, "next callback saw "+fl.Get(l)) })
			require.NoError(t, l.Run())
			assert.Equal(t, []string{"microtask saw ", "next microtask saw ", "next callback saw "}, seen)
			assert.Equal(t, uint64(2), l.Metrics().Microtasks)
		})
	}
}

// A fiber resumed by a microtask does not go on draining the queue when it
// is done (the rule), on both paths: resumed fibers do not nest.
func TestDrainRuleOnBothPaths(t *testing.T) {
	for _, p := range drainPaths {
		t.Run(p.name, func(t *testing.T) {
			for _, n := range []int{10, 100} {
				on := conformance.ScenarioQueueFibers(newLoop(t, p.opts...), n)
				require.NoError(t, on.RunErr)
				for i := 1; i < on.N; i++ {
					assert.Equal(t, on.Depths[0], on.Depths[i], fmt.Sprintf("depth of fiber %d of %d", i, n))
					assert.True(t, on.PrevFinished(i), "fiber %d-1 finished before fiber %d went on", i, i)
				}
				assert.Zero(t, on.LiveEnd)
			}
		})
	}
}

// RunOnce runs one tick, with or without wait: a defer that a callback of
// that tick queues runs in the next RunOnce, not in the same one (the
// callback fiber runs the following tick itself only under Run).
func TestRunOnceRunsOneTick(t *testing.T) {
	for _, wait := range []bool{false, true} {
		t.Run(fmt.Sprint("wait=", wait), func(t *testing.T) {
			l := newLoop(t)
			var ran []string
			l.Defer(func(core.CallbackID) {
				ran = append(ran, "first")
				l.Defer(func(core.CallbackID) { ran = append(ran, "deferred by first") })
			})
			alive, err := l.RunOnce(wait)
			require.NoError(t, err)
			assert.True(t, alive, "the second defer keeps the loop alive")
			assert.Equal(t, []string{"first"}, ran)
			alive, err = l.RunOnce(wait)
			require.NoError(t, err)
			assert.False(t, alive)
			assert.Equal(t, []string{"first", "deferred by first"}, ran)
		})
	}
}
