package main

import "fmt"

// targets checks what was measured against the targets of the issue that
// asked for this command. Timing targets mean something only in the full
// mode on a quiet machine; they are computed in both.
func targets(rep *Report) []Target {
	floor := map[string]float64{}
	for _, f := range rep.Floors {
		floor[f.Name] = f.NsOp
	}
	var ts []Target
	add := func(driver, what string, value float64, limit string, met bool) {
		ts = append(ts, Target{Driver: driver, What: what, Value: value, Limit: limit, Met: met})
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
		add(d.Driver, "rule on: depth of the last resumed fiber minus the first, worst N", float64(maxGap), "= 0", maxGap == 0)
		add(d.Driver, "rule on: fibers live after the tick, worst N", float64(maxLive), "= 0", maxLive == 0)
		add(d.Driver, fmt.Sprintf("rule on: bytes per suspended fiber at N=%d", largest), float64(perFiber), "≤ 4096", perFiber <= 4096)
		add(d.Driver, fmt.Sprintf("rule off: depth growth first→last at N=%d (the growth the rule prevents)", largest), float64(offGrowth), "> 0", offGrowth > 0)
		add(d.Driver, fmt.Sprintf("rule off: fibers left live after the tick at N=%d", largest), float64(offLive), "> 0", offLive > 0)
		add(d.Driver, "goroutines left after Close, worst row", float64(maxClosed), "= 0", maxClosed == 0)
		for _, c := range d.Cost {
			add(d.Driver, "rule cost, "+c.Case+" (%, median of the pairs)", c.RuleCostPct, "≤ 1", c.RuleCostPct <= 1)
			t := &ts[len(ts)-1]
			t.Interval = []float64{c.RuleCostLowPct, c.RuleCostHighPct}
			t.Noise = !t.Met && c.RuleCostLowPct <= 1
			if c.FasterUpstream > 0 {
				add(d.Driver, "faster than upstream (PHP, after), "+c.Case+" (×)", c.FasterUpstream, "≥ 10", c.FasterUpstream >= 10)
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
			add(d.Driver, caseName+" / "+floorName+" (×)", r, limitText, r <= limit)
		}
		ratio("microtasks (Queue)", floorFIFO, "≤ 4", 4)
		ratio("suspend/resume: queued microtask, in a fiber", floorPull, "≤ 3", 3)
		ratio("suspend/resume: Defer, in a fiber", floorPull, "≤ 6", 6)
	}
	return ts
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
