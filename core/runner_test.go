package core_test

import (
	"fmt"
	"runtime"
	"testing"
	"weak"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logRunner logs its name when run, and panics after that if told to.
type logRunner struct {
	name  string
	log   *[]string
	panic bool
}

func (r *logRunner) Run() {
	*r.log = append(*r.log, r.name)
	if r.panic {
		panic(r.name + " panics")
	}
}

// A Runner is a microtask like a func: the two kinds run in the order
// they were queued, after the current callback and before the next.
func TestQueueRunnerRunsInOrderWithQueue(t *testing.T) {
	l := newLoop(t)
	var log []string
	l.Defer(func(core.CallbackID) {
		log = append(log, "d1")
		l.QueueRunner(&logRunner{name: "r1", log: &log})
		l.Queue(func() { log = append(log, "q1") })
		l.QueueRunner(&logRunner{name: "r2", log: &log})
		l.QueueRunner(&logRunner{name: "r3", log: &log})
		l.Queue(func() {
			log = append(log, "q2")
			l.QueueRunner(&logRunner{name: "r4", log: &log})
		})
	})
	l.Defer(func(core.CallbackID) { log = append(log, "d2") })
	require.NoError(t, l.Run())
	assert.Equal(t, []string{"d1", "r1", "q1", "r2", "r3", "q2", "r4", "d2"}, log)
}

// A Runner that panics is reported like any microtask, and the ones
// queued behind it each run once, in order, in the next Run.
func TestQueueRunnerPanicKeepsTheOrder(t *testing.T) {
	l := newLoop(t)
	var log []string
	l.QueueRunner(&logRunner{name: "r1", log: &log, panic: true})
	l.QueueRunner(&logRunner{name: "r2", log: &log})
	l.Queue(func() { log = append(log, "q1") })
	l.QueueRunner(&logRunner{name: "r3", log: &log})
	err := l.Run()
	var u *core.UncaughtError
	require.ErrorAs(t, err, &u)
	assert.Equal(t, "r1 panics", fmt.Sprint(u.Value))
	require.NoError(t, l.Run())
	assert.Equal(t, []string{"r1", "r2", "q1", "r3"}, log)
}

type countRunner struct{ n int }

func (r *countRunner) Run() { r.n++ }

// Queueing a pointer as a Runner allocates nothing, where a closure per
// call would.
func TestQueueRunnerAllocs(t *testing.T) {
	t.Setenv(core.EnvBlocked, "0")
	l := newLoop(t)
	r := &countRunner{}
	var allocs float64
	l.Defer(func(core.CallbackID) {
		s := l.Suspension()
		resume := func() { s.Resume(nil) }
		allocs = testing.AllocsPerRun(1000, func() {
			l.QueueRunner(r)
			l.Queue(resume)
			_, _ = s.Suspend()
		})
	})
	require.NoError(t, l.Run())
	assert.Equal(t, 1001, r.n)
	assert.Zero(t, allocs, "QueueRunner and a suspension cycle: allocations a run")
}

func TestQueueRunnerMisuse(t *testing.T) {
	l := core.New(newTimerDriver())
	assert.Equal(t, "eventloop: QueueRunner called with a nil Runner", panicMessage(func() { l.QueueRunner(nil) }))
	require.NoError(t, l.Close())
	assert.Contains(t, panicMessage(func() { l.QueueRunner(&countRunner{}) }), "QueueRunner called after Close")
}

// A closed loop that is still referenced keeps no Runner it never ran.
func TestCloseDropsQueuedRunners(t *testing.T) {
	l := core.New(newTimerDriver())
	r := &logRunner{name: "never run"} // with pointers: not in a tiny block, which a neighbour could keep
	l.QueueRunner(r)
	w := weak.Make(r)
	r = nil
	require.NoError(t, l.Close())
	runtime.GC()
	assert.Nil(t, w.Value(), "the Runner queued before Close is still reachable")
	runtime.KeepAlive(l)
}
