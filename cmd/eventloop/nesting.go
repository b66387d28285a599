package main

import (
	"fmt"
	"runtime"

	"github.com/revoltgo/eventloop/core"
)

// NestingRow is one line of Table 1: N fibers suspended and all resumed in
// one tick, on one driver, with the drain rule on or off.
type NestingRow struct {
	Driver string `json:"driver"`
	N      int    `json:"n"`
	Rule   bool   `json:"rule"` // the non-nesting drain rule is on
	// ResumeDepth of the first and the last fiber resumed, and the deepest
	// chain the loop saw.
	DepthFirst int `json:"depth_first"`
	DepthLast  int `json:"depth_last"`
	MaxDepth   int `json:"max_depth"`
	// Fibers and goroutines of the loop still live after the tick (Run has
	// returned; the loop is not closed yet), and goroutines left after
	// Close (0: nothing leaked).
	FibersLive       int `json:"fibers_live"`
	Goroutines       int `json:"goroutines"`
	GoroutinesClosed int `json:"goroutines_after_close"`
	// Heap and goroutine stacks in use above the baseline taken before the
	// loop was made: with all N fibers suspended, and after the tick with
	// the N errors (each holding its stack) still held.
	MemSuspended      int64 `json:"mem_suspended_bytes"`
	MemAfter          int64 `json:"mem_after_bytes"`
	PerFiberSuspended int64 `json:"per_fiber_suspended_bytes"`
	PerFiberAfter     int64 `json:"per_fiber_after_bytes"`
	// The goroutine stacks' share of PerFiberSuspended.
	PerFiberStacks int64 `json:"per_fiber_suspended_stack_bytes"`
	Resumed        int   `json:"resumed"`
}

// stackError is an error that holds the stack it was made on, as upstream's
// exceptions do.
type stackError struct {
	i   int
	pcs []uintptr
}

func newStackError(i int) *stackError {
	var buf [64]uintptr
	n := runtime.Callers(2, buf[:])
	return &stackError{i: i, pcs: append([]uintptr(nil), buf[:n]...)}
}

func (e *stackError) Error() string {
	return fmt.Sprintf("fiber %d (%d frames)", e.i, len(e.pcs))
}

// nesting measures one row: the shape of upstream's
// ResumedQueueFibersDoNotNestInEachOther, N queued fibers suspending and
// one Defer resuming them all in order.
func nesting(driver string, n int, rule bool) (NestingRow, error) {
	row := NestingRow{Driver: driver, N: n, Rule: rule}
	g0 := runtime.NumGoroutine()
	m0, s0 := memInUse()
	// The Defer below measures memory with the loop held in runtime.GC:
	// the blocked-call report, off, would take a goroutine profile of the
	// n fibers meanwhile, and its buffers would count.
	l, err := newBenchLoop(driver, rule, core.WithBlockedReport(nil))
	if err != nil {
		return row, err
	}
	susp := make([]*core.Suspension, n)
	depths := make([]int, n)
	errs := make([]error, 0, n)
	var memSusp, stackSusp uint64
	for i := range n {
		l.Queue(func() {
			susp[i] = l.Suspension()
			if _, err := susp[i].Suspend(); err != nil {
				return
			}
			depths[i] = l.ResumeDepth()
			errs = append(errs, newStackError(i))
		})
	}
	l.Defer(func(core.CallbackID) {
		memSusp, stackSusp = memInUse()
		for _, s := range susp {
			if s != nil {
				s.Resume(nil)
			}
		}
	})
	runErr := l.Run()
	st := l.Stats()
	row.FibersLive = st.FibersLive
	row.MaxDepth = st.MaxResumeDepth
	row.Goroutines = runtime.NumGoroutine() - g0
	memAfter, _ := memInUse()
	row.Resumed = len(errs)
	row.DepthFirst, row.DepthLast = depths[0], depths[n-1]
	row.MemSuspended = int64(memSusp) - int64(m0)
	row.MemAfter = int64(memAfter) - int64(m0)
	row.PerFiberSuspended = row.MemSuspended / int64(n)
	row.PerFiberAfter = row.MemAfter / int64(n)
	row.PerFiberStacks = (int64(stackSusp) - int64(s0)) / int64(n)
	runtime.KeepAlive(errs)
	closeErr := l.Close()
	row.GoroutinesClosed = goroutinesSettle(g0) - g0
	if runErr != nil {
		return row, runErr
	}
	return row, closeErr
}
