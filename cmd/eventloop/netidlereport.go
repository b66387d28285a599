package main

import (
	"fmt"
	"io"
)

// modeIdle names the idle measurement among a report's failures.
const modeIdle = "idle"

// NetIdle is the idle table of bench --net (netidlebench.go).
type NetIdle struct {
	Conns int `json:"conns"`       // held by each server
	Asked int `json:"conns_asked"` // what the run asked for; Conns is fewer where RLIMIT_NOFILE is lower
	// ActiveEvery: one conn in that many sends a LineBytes line every
	// IntervalMS over WindowMS, once all are held.
	ActiveEvery int     `json:"active_every"`
	LineBytes   int     `json:"line_bytes"`
	IntervalMS  float64 `json:"interval_ms"`
	WindowMS    float64 `json:"window_ms"`
	// TimerMS is the interval of our servers' Repeat timer, whose
	// lateness they measure.
	TimerMS float64      `json:"timer_ms"`
	Rows    []NetIdleRow `json:"rows"`
}

// NetIdleRow is one server: medians over the repetitions whose sample
// measured, and the samples.
type NetIdleRow struct {
	Server string `json:"server"`
	Label  string `json:"label"`
	// ReadBuf is the read buffer a conn of the server holds, bytes (0:
	// none of its own: the server reads into a shared one).
	ReadBuf int `json:"read_buffer_bytes"`
	// Heap and Stacks per conn: what the server's heap in use and
	// goroutine stacks grew by with the conns, over their number; RSS
	// likewise for its resident set. nil where no sample measured.
	Heap   *float64 `json:"heap_bytes_per_conn,omitempty"`
	Stacks *float64 `json:"stack_bytes_per_conn,omitempty"`
	RSS    *float64 `json:"rss_bytes_per_conn,omitempty"`
	// LatenessP99ms is the p99 of the server's timer lateness over the
	// active window, ms: ours only; TickerP99ms that of a time.Ticker on a
	// goroutine of the same process, the control.
	LatenessP99ms *float64 `json:"timer_lateness_p99_ms,omitempty"`
	TickerP99ms   *float64 `json:"ticker_lateness_p99_ms,omitempty"`
	// LineP99ms is the p99 of the active lines' round trips, as the
	// client timed them, ms.
	LineP99ms *float64        `json:"line_rtt_p99_ms,omitempty"`
	Samples   []NetIdleSample `json:"samples"`
}

// NetIdleSample is one server in one repetition.
type NetIdleSample struct {
	Rep    int      `json:"rep"`
	Heap   float64  `json:"heap_bytes_per_conn"`
	Stacks float64  `json:"stack_bytes_per_conn"`
	RSS    *float64 `json:"rss_bytes_per_conn,omitempty"` // nil without /proc
	// Timers is how many timer callbacks ran in the active window, and
	// LatenessP50ms and LatenessP99ms how late they ran (ours only);
	// TickerP99ms is the control's (NetIdleRow).
	Timers        uint64   `json:"timers,omitempty"`
	LatenessP50ms *float64 `json:"timer_lateness_p50_ms,omitempty"`
	LatenessP99ms *float64 `json:"timer_lateness_p99_ms,omitempty"`
	TickerP99ms   *float64 `json:"ticker_lateness_p99_ms,omitempty"`
	Active        int      `json:"active_conns"`
	Lines         int64    `json:"lines"` // echoed and checked in the window
	LineP99ms     float64  `json:"line_rtt_p99_ms"`
	Error         string   `json:"error,omitempty"`
}

// summarizeIdle fills a row's medians from its samples that measured.
func summarizeIdle(r *NetIdleRow) {
	var heap, stacks, rss, late, ticker, line []float64
	for _, s := range r.Samples {
		if s.Error != "" {
			continue
		}
		heap, stacks = append(heap, s.Heap), append(stacks, s.Stacks)
		if s.RSS != nil {
			rss = append(rss, *s.RSS)
		}
		if s.LatenessP99ms != nil {
			late = append(late, *s.LatenessP99ms)
		}
		if s.TickerP99ms != nil {
			ticker = append(ticker, *s.TickerP99ms)
		}
		if s.Lines > 0 {
			line = append(line, s.LineP99ms)
		}
	}
	r.Heap, r.Stacks, r.RSS = medianOrNil(heap), medianOrNil(stacks), medianOrNil(rss)
	r.LatenessP99ms, r.TickerP99ms, r.LineP99ms = medianOrNil(late), medianOrNil(ticker), medianOrNil(line)
}

func writeNetIdleMarkdown(w io.Writer, idle *NetIdle, reps int) {
	fmt.Fprintf(w, "## Idle connections, N = %d\n\n", idle.Conns)
	fmt.Fprintf(w, "Each server holds N connections of a client process of its own (its source addresses spread over 127.0.0.0/8), each of which echoed one byte first, then idle. Per connection: what the server's heap in use and goroutine stacks grew by (runtime.MemStats HeapInuse and StackInuse after two collections, read by the server on SIGUSR2), and its resident set (/proc/<pid>/statm), the medians over %d repetition(s). Read buffer: what a connection holds of its own to read into (a fiber's or a goroutine's, here the size of a message; a real server's is larger), none where the server reads into one it shares. Then one connection in %d sends a %d-byte line every %.0f ms for %.0f ms: timer lateness is the p99 of how late a Repeat timer every %.0f ms ran on our server's loop meanwhile (core.Metrics.TimerLateness), Go ticker the p99 of how late a time.Ticker as often ran on a goroutine of the same process (a control: what the machine makes any goroutine wait), line round trip the p99 of the lines' echoes as the client timed them.\n\n",
		reps, idle.ActiveEvery, idle.LineBytes, idle.IntervalMS, idle.WindowMS, idle.TimerMS)
	fmt.Fprintf(w, "| server | read buffer | heap + stacks B/conn | of which stacks | RSS B/conn | timer lateness p99 | Go ticker p99 | line round trip p99 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range idle.Rows {
		buf := "none"
		if r.ReadBuf > 0 {
			buf = fmt.Sprintf("%d B", r.ReadBuf)
		}
		mem, stacks, rss := "failed", "", ""
		if r.Heap != nil {
			mem = fmt.Sprintf("%.0f", *r.Heap+*r.Stacks)
			stacks = fmt.Sprintf("%.0f", *r.Stacks)
		}
		if r.RSS != nil {
			rss = fmt.Sprintf("%.0f", *r.RSS)
		}
		late, ticker, line := "", "", ""
		if r.LatenessP99ms != nil {
			late = fmt.Sprintf("%.2f ms", *r.LatenessP99ms)
		}
		if r.TickerP99ms != nil {
			ticker = fmt.Sprintf("%.2f ms", *r.TickerP99ms)
		}
		if r.LineP99ms != nil {
			line = fmt.Sprintf("%.2f ms", *r.LineP99ms)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Label, buf, mem, stacks, rss, late, ticker, line)
	}
	fmt.Fprintln(w)
}
