package main

import (
	"fmt"
	"strings"
)

// The kinds of target. A check is decided by counting (depths, fibers and
// goroutines left, bytes a fiber holds), so a miss is a defect and fails
// the command. An informational target is a ratio of wall-clock times,
// which swings with the machine's load (a quick run on a shared machine
// misses some of them on any build), so the command reports it and does
// not fail on it.
const (
	kindCheck = "check"
	kindInfo  = "informational"
)

// targets checks what was measured against the targets of the issue that
// asked for this command. Timing targets mean something only in the full
// mode on a quiet machine; they are computed in both, as informational.
func targets(rep *Report) []Target {
	floor := map[string]float64{}
	for _, f := range rep.Floors {
		floor[f.Name] = f.NsOp
	}
	var ts []Target
	add := func(kind, driver, what string, value float64, limit string, met bool) {
		ts = append(ts, Target{Kind: kind, Driver: driver, What: what, Value: value, Limit: limit, Met: met})
	}
	for _, d := range rep.Drivers {
		var maxGap, maxLive, maxClosed int
		var perFiber int64
		largest := 0
		var offGrowth, offLive int
		for _, r := range d.Nesting {
			if r.GoroutinesClosed > maxClosed {
				maxClosed = r.GoroutinesClosed
			}
			if !r.Rule {
				if r.N >= largest {
					offGrowth, offLive = r.DepthLast-r.DepthFirst, r.FibersLive
				}
				continue
			}
			maxGap = max(maxGap, abs(r.DepthLast-r.DepthFirst))
			maxLive = max(maxLive, r.FibersLive)
			if r.N >= largest {
				largest, perFiber = r.N, r.PerFiberSuspended
			}
		}
		add(kindCheck, d.Driver, "rule on: depth of the last resumed fiber minus the first, worst N", float64(maxGap), "= 0", maxGap == 0)
		add(kindCheck, d.Driver, "rule on: fibers live after the tick, worst N", float64(maxLive), "= 0", maxLive == 0)
		add(kindCheck, d.Driver, fmt.Sprintf("rule on: bytes per suspended fiber at N=%d", largest), float64(perFiber), "≤ 4096", perFiber <= 4096)
		add(kindCheck, d.Driver, fmt.Sprintf("rule off: depth growth first→last at N=%d (the growth the rule prevents)", largest), float64(offGrowth), "> 0", offGrowth > 0)
		add(kindCheck, d.Driver, fmt.Sprintf("rule off: fibers left live after the tick at N=%d", largest), float64(offLive), "> 0", offLive > 0)
		add(kindCheck, d.Driver, "goroutines left after Close, worst row", float64(maxClosed), "= 0", maxClosed == 0)
		for _, c := range d.Cost {
			add(kindInfo, d.Driver, "rule cost, "+c.Case+" (%, median of the pairs)", c.RuleCostPct, "≤ 1", c.RuleCostPct <= 1)
			t := &ts[len(ts)-1]
			t.Interval = []float64{c.RuleCostLowPct, c.RuleCostHighPct}
			t.Noise = !t.Met && c.RuleCostLowPct <= 1
			if c.FasterUpstream > 0 {
				add(kindInfo, d.Driver, "faster than upstream (PHP, after), "+c.Case+" (×)", c.FasterUpstream, "≥ 10", c.FasterUpstream >= 10)
			}
		}
		byName := map[string]CostRow{}
		for _, c := range d.Cost {
			byName[c.Case] = c
		}
		ratio := func(caseName, floorName, limitText string, limit float64) {
			c, ok := byName[caseName]
			f := floor[floorName]
			if !ok || f == 0 {
				return
			}
			r := c.OnNsOp / f
			add(kindInfo, d.Driver, caseName+" / "+floorName+" (×)", r, limitText, r <= limit)
		}
		ratio("microtasks (Queue)", floorFIFO, "≤ 4", 4)
		ratio("suspend/resume: queued microtask, in a fiber", floorPull, "≤ 3", 3)
		ratio("suspend/resume: Defer, in a fiber", floorPull, "≤ 6", 6)
	}
	return ts
}

// unmetChecks is an error naming every target of kind check that was not
// met, or nil: bench fails on those alone.
func unmetChecks(ts []Target) error {
	var missed []string
	for _, t := range ts {
		if t.Kind == kindCheck && !t.Met {
			missed = append(missed, fmt.Sprintf("%s: %s = %g, want %s", t.Driver, t.What, t.Value, t.Limit))
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return fmt.Errorf("%d target(s) of kind %s not met:\n  %s", len(missed), kindCheck, strings.Join(missed, "\n  "))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
