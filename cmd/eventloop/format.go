package main

import (
	"fmt"
	"io"
	"strings"
)

func writeMarkdown(w io.Writer, rep *Report) {
	mode := "full"
	if rep.Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "# eventloop bench (%s mode)\n\n", mode)
	writeRecorded(w)
	fmt.Fprintf(w, "## This run: the scheduler\n\n%s, %s, %d CPUs, goroutine starting stack %d B; Table 2 from %d pairs of runs per case, the floors medians of %d runs.\n\n",
		rep.Go, rep.Platform, rep.CPUs, rep.StackStart, rep.Pairs, rep.Runs)
	for _, d := range rep.Drivers {
		fmt.Fprintf(w, "## Driver %s\n\n", d.Driver)
		fmt.Fprintf(w, "### Table 1: N fibers resumed in one tick\n\n")
		fmt.Fprintln(w, "Depth is ResumeDepth (main 0, loop fiber 1, callback fiber 2). Live and goroutines: after the tick, before Close (the goroutines of finished fibers stay pooled for reuse, up to 256). Memory: heap + goroutine stacks above the baseline, after a GC; after the tick every fiber's error (holding its stack) is still held.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| N | rule | depth first | depth last | max depth | fibers live | goroutines | after Close | mem suspended | per fiber | of it stack | mem after tick | per fiber |")
		fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, r := range d.Nesting {
			fmt.Fprintf(w, "| %d | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n",
				r.N, onOff(r.Rule), r.DepthFirst, r.DepthLast, r.MaxDepth, r.FibersLive, r.Goroutines, r.GoroutinesClosed,
				bytesStr(r.MemSuspended), bytesStr(r.PerFiberSuspended), bytesStr(r.PerFiberStacks), bytesStr(r.MemAfter), bytesStr(r.PerFiberAfter))
		}
		fmt.Fprintf(w, "\n### Table 2: cost, rule off → on\n\n")
		fmt.Fprintln(w, "Each case runs in pairs of short runs of ops operations, each on a fresh loop, the rule off and on back to back (which goes first alternates). ms, ns/op and allocs/op are medians over the runs. Rule cost is the median over the pairs of the ratio on/off, minus 1, and a 95% interval for that median: when the interval reaches past 1% the data cannot tell whether the rule costs more than 1%. Where nothing suspends (microtasks, defers) both modes run the same instructions, so there the interval shows the noise alone. Upstream: PHP after the change, in ns/op (ms for its number of operations).")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| case | ops | ms off | ms on | ns/op off | ns/op on | allocs/op off | allocs/op on | rule cost [95%] | upstream PHP ns/op (ms / ops) | faster |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, c := range d.Cost {
			up, faster := "", ""
			if c.UpstreamMS > 0 {
				up = fmt.Sprintf("%.0f (%g / %d)", c.UpstreamNsOp, c.UpstreamMS, c.UpstreamOps)
				faster = fmt.Sprintf("%.1f×", c.FasterUpstream)
			}
			fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.1f | %.1f | %.3f | %.3f | %+.1f%% [%+.1f, %+.1f] | %s | %s |\n",
				c.Case, c.Ops, c.OffMS, c.OnMS, c.OffNsOp, c.OnNsOp, c.OffAllocsOp, c.OnAllocsOp,
				c.RuleCostPct, c.RuleCostLowPct, c.RuleCostHighPct, up, faster)
		}
		fmt.Fprintln(w)
	}
	writeWatchdogMarkdown(w, rep)
	fmt.Fprintf(w, "## Floors (bare Go)\n\n| floor | ops | ms | ns/op | allocs/op |\n|---|---:|---:|---:|---:|\n")
	for _, f := range rep.Floors {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.3f |\n", f.Name, f.Ops, f.MS, f.NsOp, f.AllocsOp)
	}
	fmt.Fprintf(w, "\n## Targets\n\n")
	fmt.Fprintf(w, "A target of kind %s is counted, not timed: the command exits 1 when one is not met. A target of kind %s is a ratio of wall-clock times, which swings with the machine's load: it is reported, and the command does not fail on it.\n\n", kindCheck, kindInfo)
	fmt.Fprintf(w, "| driver | target | kind | measured | limit | met |\n|---|---|---|---:|---|---|\n")
	for _, t := range rep.Targets {
		met := "yes"
		switch {
		case t.Noise:
			met = "within noise"
		case !t.Met:
			met = "**no**"
		}
		value := fmt.Sprintf("%.2f", t.Value)
		if len(t.Interval) == 2 {
			value += fmt.Sprintf(" [%.2f, %.2f]", t.Interval[0], t.Interval[1])
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", t.Driver, t.What, t.Kind, value, t.Limit, met)
	}
	fmt.Fprintln(w)
	if len(rep.Peers) > 0 {
		writePeersMarkdown(w, rep.Peers)
	}
	if rep.PeersNote != "" {
		fmt.Fprintf(w, "Peers: %s\n", rep.PeersNote)
	}
}

func bytesStr(b int64) string {
	neg := ""
	if b < 0 {
		neg, b = "-", -b
	}
	switch {
	case b >= 10<<20:
		return fmt.Sprintf("%s%.1f MiB", neg, float64(b)/(1<<20))
	case b >= 10<<10:
		return fmt.Sprintf("%s%.1f KiB", neg, float64(b)/(1<<10))
	}
	return neg + strings.TrimSpace(fmt.Sprintf("%d B", b))
}

// plural is "1 loop", "2 loops".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
