package main

import (
	"fmt"
	"io"
	"iter"
	"strings"
)

// NetReport is everything `bench --net` measured; --format json prints it
// as is.
type NetReport struct {
	Go       string  `json:"go"`
	Platform string  `json:"platform"`
	CPUs     int     `json:"cpus"`
	Quick    bool    `json:"quick"`
	Reps     int     `json:"repetitions"`
	WarmupMS float64 `json:"warmup_ms"`
	WindowMS float64 `json:"window_ms"`
	MsgBytes int     `json:"message_bytes"`
	Depth    int     `json:"pipeline_depth"`
	// Baseline is the label of the server the ratios are to.
	Baseline string       `json:"baseline"`
	Servers  []NetServer  `json:"servers"` // in the order of the tables' rows
	Tables   []NetTable   `json:"tables"`  // one per mode and connection count
	Idle     *NetIdle     `json:"idle,omitempty"`
	Notes    []string     `json:"notes,omitempty"`
	Failures []NetFailure `json:"failures,omitempty"`
}

// NetServer is one server measured: its key, its label in the tables and
// the command that ran it (ADDR standing for its address).
type NetServer struct {
	Key     string   `json:"key"`
	Label   string   `json:"label"`
	Command []string `json:"command"`
}

// NetTable is one mode and connection count.
type NetTable struct {
	Mode  string   `json:"mode"`
	Conns int      `json:"conns"`
	Rows  []NetRow `json:"rows"`
}

// NetRow is one server in one table: medians over the repetitions in
// which its cell ran, and each repetition's sample.
type NetRow struct {
	Server string  `json:"server"` // NetServer.Key
	Label  string  `json:"label"`
	Rate   float64 `json:"round_trips_per_s"`
	// Ratio is the median over the repetitions of this server's rate over
	// the baseline's in the same repetition.
	Ratio *float64 `json:"ratio_to_baseline,omitempty"`
	// CPUus is the server's CPU time per round trip, µs.
	CPUus *float64 `json:"server_cpu_us_per_round_trip,omitempty"`
	// Calls is the server's read and write system calls per round trip.
	Calls   *float64    `json:"server_calls_per_round_trip,omitempty"`
	Samples []NetSample `json:"samples"`
}

// NetSample is one cell: one server, mode and connection count, in one
// repetition.
type NetSample struct {
	Rep        int      `json:"rep"`
	RoundTrips int64    `json:"round_trips"`
	Seconds    float64  `json:"seconds"`
	Rate       float64  `json:"round_trips_per_s"`
	CPUus      *float64 `json:"server_cpu_us_per_round_trip,omitempty"`
	Calls      *float64 `json:"server_calls_per_round_trip,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// NetFailure is a cell that did not measure.
type NetFailure struct {
	Server string `json:"server"`
	Mode   string `json:"mode"`
	Conns  int    `json:"conns"`
	Rep    int    `json:"rep"`
	Error  string `json:"error"`
}

// rotation is the order in which repetition rep starts the n servers: the
// list from offset rep on, then from its start, so that over n
// repetitions each server runs once in each position, and neither the
// first (on a cold machine) nor the last (after the others' garbage) is
// always the same one.
func rotation(n, rep int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (rep + i) % n
	}
	return order
}

// rotations yields each repetition of reps with each of n servers, in the
// order rotation gives.
func rotations(reps, n int) iter.Seq2[int, int] {
	return func(yield func(rep, server int) bool) {
		for r := range reps {
			for _, i := range rotation(n, r) {
				if !yield(r, i) {
					return
				}
			}
		}
	}
}

// newSample makes a cell's sample from the client's result.
func newSample(rep int, res netClientResult, err error) NetSample {
	s := NetSample{Rep: rep, RoundTrips: res.RoundTrips, Seconds: res.Seconds}
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Rate = float64(res.RoundTrips) / res.Seconds
	if res.CPUError == "" && res.RoundTrips > 0 {
		s.CPUus = cpuMicros(res.CPUTicks, res.RoundTrips)
	}
	if res.SysError == "" && res.RoundTrips > 0 {
		c := float64(res.SysReads+res.SysWrites) / float64(res.RoundTrips)
		s.Calls = &c
	}
	return s
}

// summarize fills each row's medians from its samples, and its ratio to
// the baseline row of the same table, repetition by repetition.
func summarize(t *NetTable, baseline string) {
	base := baseSamples(t.Rows, baseline, func(r NetRow) (string, []NetSample) { return r.Server, r.Samples })
	for i := range t.Rows {
		r := &t.Rows[i]
		var m []*float64
		r.Rate, r.Ratio, m = medians(r.Samples, base,
			func(s NetSample) *float64 { return s.CPUus }, func(s NetSample) *float64 { return s.Calls })
		r.CPUus, r.Calls = m[0], m[1]
	}
}

// cellSample is what medians reads of a cell's sample (NetSample,
// HTTPSample): its repetition, its rate, and whether it measured.
type cellSample interface {
	repRate() (rep int, rate float64, ok bool)
}

func (s NetSample) repRate() (int, float64, bool)  { return s.Rep, s.Rate, s.Error == "" }
func (s HTTPSample) repRate() (int, float64, bool) { return s.Rep, s.Rate, s.Error == "" }

// baseSamples is the samples of the row of rows whose key (of says it)
// is baseline, the last such row; nil if none.
func baseSamples[R any, S cellSample](rows []R, baseline string, of func(R) (key string, samples []S)) (base []S) {
	for _, r := range rows {
		if key, s := of(r); key == baseline {
			base = s
		}
	}
	return base
}

// medians summarizes a row's samples that did not fail: the median rate
// (0 if none), the median of the ratios to the rate of base's sample of
// the same repetition, and the median of each of metrics (nil where no
// sample has it).
func medians[S cellSample](samples, base []S, metrics ...func(S) *float64) (rate float64, ratio *float64, ms []*float64) {
	var rates, ratios []float64
	vals := make([][]float64, len(metrics))
	for _, s := range samples {
		rep, r, ok := s.repRate()
		if !ok {
			continue
		}
		rates = append(rates, r)
		for k, metric := range metrics {
			if v := metric(s); v != nil {
				vals[k] = append(vals[k], *v)
			}
		}
		for _, b := range base {
			if brep, br, bok := b.repRate(); brep == rep && bok && br > 0 {
				ratios = append(ratios, r/br)
			}
		}
	}
	if m := medianOrNil(rates); m != nil {
		rate = *m
	}
	for _, v := range vals {
		ms = append(ms, medianOrNil(v))
	}
	return rate, medianOrNil(ratios), ms
}

func medianOrNil(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m, _, _ := medianCI(xs)
	return &m
}

func modeTitle(mode string) string {
	switch mode {
	case modePipelined:
		return fmt.Sprintf("pipelined, %d deep", netPipelineDepth)
	case modeIdle:
		return "idle"
	}
	return "ping-pong"
}

func writeNetMarkdown(w io.Writer, rep *NetReport) {
	mode := "full"
	if rep.Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "# eventloop bench --net (%s mode)\n\n", mode)
	fmt.Fprintf(w, "%s, %s, %d CPUs. TCP echo over 127.0.0.1. Each server is a process of its own on a free port, started in rotating order (repetition r starts the list at its r-th server) and stopped after its cells. Each cell is a load client process of its own with C connections, one goroutine each, sending %d-byte messages whose echo is checked byte for byte: ping-pong (one message in flight per connection) or pipelined (%d in flight per connection); %.0f ms of warm-up, then a window of %.0f ms.\n\n",
		rep.Go, rep.Platform, rep.CPUs, rep.MsgBytes, rep.Depth, rep.WarmupMS, rep.WindowMS)
	fmt.Fprintf(w, "Round trips/s: messages echoed per second in the window, the median over %d repetition(s). Ratio: to %s in the same repetition, the median of those. Server CPU: user + system time of the server process over the window (/proc/<pid>/stat, in %d ms ticks), µs per round trip, the median. Calls: the server's read and write system calls per round trip (syscr + syscw of /proc/<pid>/io), the median; readiness waits (epoll_wait, poll) are not among them. The client shares the machine's CPUs with the server.\n\n",
		rep.Reps, rep.Baseline, 1000/clockTicksPerSecond)
	for _, t := range rep.Tables {
		fmt.Fprintf(w, "## %s, C = %d\n\n", modeTitle(t.Mode), t.Conns)
		fmt.Fprintf(w, "| server | round trips/s | ratio to %s | server CPU µs/round trip | calls/round trip |\n|---|---:|---:|---:|---:|\n", rep.Baseline)
		for _, r := range t.Rows {
			rate, ratio, cpu, calls := "failed", "", "", ""
			if r.Rate > 0 {
				rate = fmt.Sprintf("%.0f", r.Rate)
			}
			if r.Ratio != nil {
				ratio = fmt.Sprintf("%.2f×", *r.Ratio)
			}
			if r.CPUus != nil {
				cpu = fmt.Sprintf("%.2f", *r.CPUus)
			}
			if r.Calls != nil {
				calls = fmt.Sprintf("%.2f", *r.Calls)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.Label, rate, ratio, cpu, calls)
		}
		fmt.Fprintln(w)
	}
	if rep.Idle != nil {
		writeNetIdleMarkdown(w, rep.Idle, rep.Reps)
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(w, "Failed cells:\n\n")
		for _, f := range rep.Failures {
			fmt.Fprintf(w, "- %s, %s, C = %d, repetition %d: %s\n", f.Server, modeTitle(f.Mode), f.Conns, f.Rep+1, oneLine(f.Error))
		}
		fmt.Fprintln(w)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w)
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
