package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"syscall"
	"time"
)

// report writes the markdown: parameters, tables, targets.
func report(w io.Writer, cfg config, lim syscall.Rlimit, infos map[string]string, echoes []map[string][]echoResult,
	idles map[string][]idleResult, bcasts map[string][]broadcastResult, loadBefore, loadAfter string, took time.Duration) {
	fmt.Fprintf(w, "# WebSocket echo servers, side by side\n\n")
	fmt.Fprintf(w, "- %d repetition(s), servers in rotating order, each measurement on a fresh server process; %d CPUs, GOMAXPROCS default everywhere; RLIMIT_NOFILE %d\n",
		cfg.reps, runtime.NumCPU(), lim.Cur)
	fmt.Fprintf(w, "- client: gorilla/websocket's, a process of its own, one goroutine per conn, every echo checked byte for byte\n")
	fmt.Fprintf(w, "- echo: %d conns, binary messages, closed loop, %v warm-up, %v window; a table per message size, without and with "+
		"permessage-deflate (offered by the client, no context takeover; every server accepts it and compresses what it sends, "+
		"as far as its own threshold goes)\n", cfg.conns, cfg.warmup, cfg.window)
	if cfg.idle > 0 {
		fmt.Fprintf(w, "- idle: %d conns upgraded, then idle; readings after runtime.GC() in the server\n", cfg.idle)
		if cfg.broadcasts > 0 {
			fmt.Fprintf(w, "- broadcast: %d conns upgraded, then %d broadcasts of a %d-byte binary message to all, one after the other, "+
				"each once the client has received every frame of the one before; every delivery checked\n", cfg.idle, cfg.broadcasts, broadcastSize)
		}
	}
	for _, s := range cfg.servers {
		fmt.Fprintf(w, "- %s: %s\n", labels[s], infos[s])
	}
	fmt.Fprintf(w, "- load average (/proc/loadavg) before: %s, after: %s\n", loadBefore, loadAfter)
	fmt.Fprintf(w, "- run took %v\n", took.Round(time.Second))

	for ci, ec := range cfg.cases {
		echoTable(w, cfg, ec, echoes[ci])
	}

	if cfg.idle > 0 {
		fmt.Fprintf(w, "\n## Idle\n\n")
		fmt.Fprintf(w, "RSS: (VmRSS after − before)/N; heap: Go live heap objects + goroutine stacks (/memory/classes/heap/objects:bytes + "+
			"/memory/classes/heap/stacks:bytes), (after − before)/N; medians of the repetitions.\n\n")
		fmt.Fprintf(w, "| server | bytes RSS/conn | heap bytes/conn | of which stacks |\n|---|---:|---:|---:|\n")
		for _, s := range cfg.servers {
			rs := idles[s]
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f |\n", labels[s],
				median(pick(rs, func(r idleResult) float64 { return r.rssPerConn })),
				median(pick(rs, func(r idleResult) float64 { return r.heapPerConn })),
				median(pick(rs, func(r idleResult) float64 { return r.stackPerConn })))
		}
	}

	if len(bcasts) > 0 {
		broadcastTable(w, cfg, bcasts)
	}

	fmt.Fprintf(w, "\n## Targets\n\n")
	first := echoes[0] // the echo targets are the first table's
	base, nbio := first[baseline], first["nbio"]
	fmt.Fprintf(w, "Echo: the %v table.\n\n", cfg.cases[0])
	for _, s := range []string{"gorilla-ours", "gorilla-ours-loops"} {
		rs, ok := first[s]
		if !ok {
			continue
		}
		if len(base) == len(rs) {
			r := ratioMedian(rs, base)
			fmt.Fprintf(w, "- %s: echo %.2f× %s (target ≥ 1.3×): %s\n", labels[s], r, labels[baseline], met(r >= 1.3))
		}
		if len(nbio) == len(rs) {
			r := ratioMedian(rs, nbio)
			fmt.Fprintf(w, "- %s: echo %.2f× %s (target ≥ 1×): %s\n", labels[s], r, labels["nbio"], met(r >= 1))
		}
		if ib, io := idles[baseline], idles[s]; len(ib) > 0 && len(io) > 0 {
			b := median(pick(ib, func(r idleResult) float64 { return r.rssPerConn }))
			o := median(pick(io, func(r idleResult) float64 { return r.rssPerConn }))
			fmt.Fprintf(w, "- %s: idle %.0f bytes RSS/conn, %s %.0f (target ≤): %s\n", labels[s], o, labels[baseline], b, met(o <= b))
		}
	}
	for _, s := range []string{"ours", "ours-loops"} {
		if rs := bcasts[s]; len(rs) > 0 {
			m := 1e3 * median(allTook(rs))
			verdict := fmt.Sprintf("not judged at %d conns", cfg.idle)
			if cfg.idle >= broadcastTargetConns {
				verdict = met(m <= 20)
			}
			fmt.Fprintf(w, "- %s: broadcast of %d bytes to %d conns in %.2f ms (target ≤ 20 ms for %d conns): %s\n",
				labels[s], broadcastSize, cfg.idle, m, broadcastTargetConns, verdict)
		}
	}
}

// echoTable writes the echo table of one case.
func echoTable(w io.Writer, cfg config, ec echoCase, echoes map[string][]echoResult) {
	base := echoes[baseline]
	fmt.Fprintf(w, "\n## Echo, %v\n\n", ec)
	fmt.Fprintf(w, "msgs/s: echoes per second in the window, median (and range) of the repetitions; × %s: median of the per-repetition ratios; "+
		"CPU/msg: the process's utime+stime over the window's echoes; allocs/msg: the server's heap allocations per echo.\n\n", labels[baseline])
	fmt.Fprintf(w, "| server | msgs/s | × %s | server CPU/msg | allocs/msg | alloc bytes/msg | client CPU/msg |\n", labels[baseline])
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range cfg.servers {
		rs := echoes[s]
		rates := pick(rs, func(r echoResult) float64 { return r.rate })
		rng := ""
		if len(rates) > 1 {
			rng = fmt.Sprintf(" (%s–%s)", kilo(slices.Min(rates)), kilo(slices.Max(rates)))
		}
		ratio := "–"
		if len(base) == len(rs) {
			ratio = fmt.Sprintf("%.2f", ratioMedian(rs, base))
		}
		fmt.Fprintf(w, "| %s | %s%s | %s | %.2f µs | %.1f | %.0f | %.2f µs |\n", labels[s], kilo(median(rates)), rng, ratio,
			1e6*median(pick(rs, func(r echoResult) float64 { return r.cpuPerMsg })),
			median(pick(rs, func(r echoResult) float64 { return r.objsPerMsg })),
			median(pick(rs, func(r echoResult) float64 { return r.bytesPerMs })),
			1e6*median(pick(rs, func(r echoResult) float64 { return r.cliPerMsg })))
	}
}

// broadcastTable writes the broadcast table.
func broadcastTable(w io.Writer, cfg config, bcasts map[string][]broadcastResult) {
	fmt.Fprintf(w, "\n## Broadcast\n\n")
	fmt.Fprintf(w, "%d bytes to %d conns, %d times. Time: from the broadcast's start until every frame was handed to the kernel, "+
		"as the server measured it (what it covers for each server: bench/wsbench's package doc); median of all the broadcasts of all "+
		"the repetitions, and the slowest. CPU/broadcast: the process's utime+stime from before the first broadcast to after the last "+
		"(the waits for the client included), over the broadcasts; median of the repetitions.\n\n", broadcastSize, cfg.idle, cfg.broadcasts)
	fmt.Fprintf(w, "| server | time/broadcast | slowest | server CPU/broadcast |\n|---|---:|---:|---:|\n")
	for _, s := range cfg.servers {
		rs := bcasts[s]
		all := allTook(rs)
		if len(all) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %.2f ms | %.2f ms | %.2f ms |\n", labels[s], 1e3*median(all), 1e3*slices.Max(all),
			1e3*median(pick(rs, func(r broadcastResult) float64 { return r.cpuPer })))
	}
}

// allTook is the times of all the broadcasts of rs.
func allTook(rs []broadcastResult) []float64 {
	var all []float64
	for _, r := range rs {
		all = append(all, r.took...)
	}
	return all
}

// broadcastTargetConns is the conns the broadcast's target is set for.
const broadcastTargetConns = 10000

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

func pick[R any](rs []R, f func(R) float64) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return v
}

// ratioMedian is the median over the repetitions of rs's rate over base's.
func ratioMedian(rs, base []echoResult) float64 {
	v := make([]float64, len(rs))
	for i := range rs {
		v[i] = rs[i].rate / base[i].rate
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func kilo(v float64) string { return fmt.Sprintf("%.1fk", v/1e3) }
