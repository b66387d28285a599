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
	fmt.Fprintf(w, "# eventloop bench (%s mode)\n\n%s, %s, %d CPUs, goroutine starting stack %d B; Table 2 and the floors are medians of %d interleaved runs.\n\n",
		mode, rep.Go, rep.Platform, rep.CPUs, rep.StackStart, rep.Runs)
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
		fmt.Fprintln(w, "| case | ops | ms off | ms on | ns/op off | ns/op on | allocs/op off | allocs/op on | rule cost | upstream PHP ms (ns/op) | faster |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, c := range d.Cost {
			up, faster := "", ""
			if c.UpstreamMS > 0 {
				up = fmt.Sprintf("%g (%.0f)", c.UpstreamMS, c.UpstreamNsOp)
				faster = fmt.Sprintf("%.1f×", c.FasterUpstream)
			}
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f | %+.1f%% | %s | %s |\n",
				c.Case, c.Ops, c.OffMS, c.OnMS, c.OffNsOp, c.OnNsOp, c.OffAllocsOp, c.OnAllocsOp, c.RuleCostPct, up, faster)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Floors (bare Go)\n\n| floor | ops | ms | ns/op | allocs/op |\n|---|---:|---:|---:|---:|\n")
	for _, f := range rep.Floors {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.3f |\n", f.Name, f.Ops, f.MS, f.NsOp, f.AllocsOp)
	}
	fmt.Fprintf(w, "\n## Targets\n\n| driver | target | measured | limit | met |\n|---|---|---:|---|---|\n")
	for _, t := range rep.Targets {
		met := "yes"
		if !t.Met {
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %s | %s |\n", t.Driver, t.What, t.Value, t.Limit, met)
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
