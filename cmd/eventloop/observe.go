package main

import (
	"fmt"
	"io"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Table 3: what seeing inside the loop costs. The metrics are always on
// (their cost against the build before them is the benchstat figures of docs/observing.md);
// the watchdog is an option, so its cost is measured here as the rule's
// is: cases of Table 2 in pairs of runs, watchdog off and on.

// OverheadRow is one line of Table 3.
type OverheadRow struct {
	Case    string  `json:"case"`
	Ops     int     `json:"ops"`
	OffNsOp float64 `json:"off_ns_op"`
	OnNsOp  float64 `json:"on_ns_op"`
	// CostPct is the median over the pairs of on/off - 1, in percent, and
	// CostNs the same difference in ns/op; Low and High bound CostPct with
	// 95% confidence (medianCI).
	CostPct     float64 `json:"cost_pct"`
	CostLowPct  float64 `json:"cost_low_pct"`
	CostHighPct float64 `json:"cost_high_pct"`
	CostNs      float64 `json:"cost_ns_op"`
}

// watchdogThreshold is far above any run of the cases: the watchdog times
// every callback and never reports.
const watchdogThreshold = time.Minute

// watchdogCaseNames are the cases of Table 2 that Table 3 runs: the
// watchdog's work is per callback and per microtask, and per resumed fiber.
var watchdogCaseNames = []string{
	"microtasks (Queue)",
	"defers (a tick each)",
	"suspend/resume: queued microtask, in a fiber",
}

func measureWatchdog(cfg benchConfig, driver string) ([]OverheadRow, error) {
	byName := map[string]costCase{}
	for _, c := range costCases(cfg.sizes) {
		byName[c.name] = c
	}
	var rows []OverheadRow
	for _, name := range watchdogCaseNames {
		c := byName[name]
		off, on, ratio, err := pairedRuns(cfg, func(watch bool) (sample, error) {
			var opts []core.Option
			if watch {
				opts = append(opts, core.WithWatchdog(watchdogThreshold, func(core.SlowCallback) {}))
			}
			s, err := costRun(driver, c, true, opts...)
			if err != nil {
				return s, fmt.Errorf("%s: %s, watchdog %s: %w", driver, c.name, onOff(watch), err)
			}
			return s, nil
		})
		if err != nil {
			return nil, err
		}
		mOff, mOn := median(off), median(on)
		r, lo, hi := medianCI(ratio)
		ops := float64(c.ops)
		row := OverheadRow{
			Case:        c.name,
			Ops:         c.ops,
			OffNsOp:     float64(mOff.d.Nanoseconds()) / ops,
			OnNsOp:      float64(mOn.d.Nanoseconds()) / ops,
			CostPct:     100 * (r - 1),
			CostLowPct:  100 * (lo - 1),
			CostHighPct: 100 * (hi - 1),
		}
		row.CostNs = (r - 1) * row.OffNsOp
		rows = append(rows, row)
		progress(cfg, "[%s] watchdog %s: off %.1f, on %.1f ns/op, cost %+.1f%% [%+.1f, %+.1f]",
			driver, c.name, row.OffNsOp, row.OnNsOp, row.CostPct, row.CostLowPct, row.CostHighPct)
	}
	return rows, nil
}

func writeWatchdogMarkdown(w io.Writer, rep *Report) {
	if len(rep.Watchdog) == 0 {
		return
	}
	fmt.Fprintf(w, "## Table 3: the watchdog's cost, off → on (driver %s)\n\n", rep.WatchdogDriver)
	fmt.Fprintln(w, "Cases of Table 2 (rule on) in pairs of runs, WithWatchdog off and on (threshold 1 min: it times every run and never reports), read as Table 2's rule cost. On, every callback, microtask and resumed fiber costs a clock read and an atomic swap, and so does the end of each batch of them (a tick, a suspension). The metrics are always on: their cost is measured against the build before them (docs/observing.md).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | ops | ns/op off | ns/op on | cost ns/op | cost [95%] |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, r := range rep.Watchdog {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %+.1f | %+.1f%% [%+.1f, %+.1f] |\n",
			r.Case, r.Ops, r.OffNsOp, r.OnNsOp, r.CostNs, r.CostPct, r.CostLowPct, r.CostHighPct)
	}
	fmt.Fprintln(w)
}
