package main

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestRotation pins the spec's order: repetition r starts the server list
// at offset r, and over n repetitions each server takes each place once.
func TestRotation(t *testing.T) {
	for _, c := range []struct {
		n, rep int
		want   []int
	}{
		{4, 0, []int{0, 1, 2, 3}},
		{4, 1, []int{1, 2, 3, 0}},
		{4, 3, []int{3, 0, 1, 2}},
		{4, 5, []int{1, 2, 3, 0}},
		{1, 2, []int{0}},
	} {
		if got := rotation(c.n, c.rep); !slices.Equal(got, c.want) {
			t.Errorf("rotation(%d, %d) = %v, want %v", c.n, c.rep, got, c.want)
		}
	}
	const n = 5
	for place := range n {
		seen := map[int]bool{}
		for r := range n {
			seen[rotation(n, r)[place]] = true
		}
		if len(seen) != n {
			t.Errorf("place %d over %d repetitions holds %d servers, want each", place, n, len(seen))
		}
	}
}

// TestParseProcStatCPU: utime and stime are fields 14 and 15 of proc(5),
// counted after the command name, which may hold spaces and parentheses.
func TestParseProcStatCPU(t *testing.T) {
	// Fields 3..15: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime, then more.
	tail := " S 1 2 3 0 -1 4194560 100 0 0 0 1234 56 7 8 20 0 3 0 99 1000 10"
	for _, comm := range []string{"(netpeers)", "(a b)", "(x) S 1 2 3)", "((()"} {
		got, err := parseProcStatCPU("4242 " + comm + tail)
		if err != nil || got != 1234+56 {
			t.Errorf("comm %s: %d, %v; want 1290", comm, got, err)
		}
	}
	for _, bad := range []string{"", "4242 netpeers S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 2 3 0 -1 0 0 0 0 0 u 56"} {
		if _, err := parseProcStatCPU(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got, err := procCPUTicks(0); got != 0 || err != nil {
		t.Errorf("pid 0: %d, %v; want 0, nil", got, err)
	}
	if runtime.GOOS == "linux" {
		if _, err := procCPUTicks(os.Getpid()); err != nil {
			t.Errorf("own /proc stat: %v", err)
		}
	}
}

// TestParseProcIO: syscr and syscw of proc(5)'s /proc/<pid>/io, in any
// order; a text without both is an error.
func TestParseProcIO(t *testing.T) {
	text := "rchar: 10\nwchar: 20\nsyscr: 1234\nsyscw: 567\nread_bytes: 0\n"
	if r, w, err := parseProcIO(text); r != 1234 || w != 567 || err != nil {
		t.Errorf("parseProcIO: %d, %d, %v; want 1234, 567", r, w, err)
	}
	for _, bad := range []string{"", "syscr: 1\n", "syscr: x\nsyscw: 2\n"} {
		if _, _, err := parseProcIO(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if runtime.GOOS == "linux" {
		r0, _, err := procIOCalls(os.Getpid())
		if err != nil {
			t.Fatalf("own /proc io: %v", err)
		}
		if _, err := os.ReadFile("/proc/self/stat"); err != nil {
			t.Fatal(err)
		}
		if r1, _, _ := procIOCalls(os.Getpid()); r1 <= r0 {
			t.Errorf("syscr %d then %d after reads: not counting", r0, r1)
		}
	}
}

// TestNetSummary: medians over the repetitions, the ratio taken within
// each repetition (so a repetition in which the machine was slow for all
// cancels out), failed samples left out, and ticks turned into µs.
func TestNetSummary(t *testing.T) {
	res := netClientResult{RoundTrips: 1000, Seconds: 0.5, CPUTicks: 2}
	s := newSample(0, res, nil)
	if s.Rate != 2000 || s.CPUus == nil || *s.CPUus != 20 { // 2 ticks = 20 ms over 1000
		t.Errorf("sample %+v", s)
	}
	if s := newSample(0, netClientResult{RoundTrips: 10, Seconds: 1, CPUError: "no /proc"}, nil); s.CPUus != nil {
		t.Errorf("CPU without /proc: %v", *s.CPUus)
	}
	rate := func(rep int, r float64) NetSample { return NetSample{Rep: rep, Rate: r} }
	tb := NetTable{Rows: []NetRow{
		{Server: "gnet", Label: "gnet, 1 loop", Samples: []NetSample{rate(0, 100), rate(1, 200), rate(2, 400)}},
		// Ratios 0.9, 0.5, 2: their median is 0.9, where the ratio of the
		// medians (100 / 200) would be 0.5.
		{Server: "x", Label: "x", Samples: []NetSample{rate(0, 90), rate(1, 100), rate(2, 800), {Rep: 3, Error: "boom"}}},
		{Server: "dead", Label: "dead", Samples: []NetSample{{Rep: 0, Error: "boom"}}},
	}}
	summarize(&tb, "gnet")
	x := tb.Rows[1]
	if x.Rate != 100 || x.Ratio == nil || *x.Ratio != 0.9 || x.CPUus != nil {
		t.Errorf("row x: %+v", x)
	}
	if b := tb.Rows[0]; b.Ratio == nil || *b.Ratio != 1 {
		t.Errorf("baseline: %+v", b)
	}
	if d := tb.Rows[2]; d.Rate != 0 || d.Ratio != nil {
		t.Errorf("failed row: %+v", d)
	}
	var md bytes.Buffer
	writeNetMarkdown(&md, &NetReport{Baseline: "gnet, 1 loop", Reps: 3, Tables: []NetTable{tb},
		Failures: []NetFailure{{Server: "dead", Mode: modePingPong, Conns: 1, Error: "boom"}}})
	for _, want := range []string{"| x | 100 | 0.90× |  |", "| dead | failed |  |  |", "- dead, ping-pong, C = 1, repetition 1: boom"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestParseStatmRSS: the resident set is statm's second field, in pages.
func TestParseStatmRSS(t *testing.T) {
	if n, err := parseStatmRSS("5000 1200 300 10 0 900 0\n", 4096); n != 1200*4096 || err != nil {
		t.Errorf("%d, %v; want %d", n, err, 1200*4096)
	}
	for _, bad := range []string{"", "5000", "5000 x 1"} {
		if _, err := parseStatmRSS(bad, 4096); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestNetIdleSummary: a row's medians leave failed samples out, and the
// markdown shows what the row measured.
func TestNetIdleSummary(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	row := NetIdleRow{Label: "x", Samples: []NetIdleSample{
		{Heap: 900, Stacks: 100, RSS: p(2000), LatenessP99ms: p(1), TickerP99ms: p(2), Lines: 5, LineP99ms: 0.5},
		{Heap: 700, Stacks: 100, RSS: p(1000), LatenessP99ms: p(3), TickerP99ms: p(4), Lines: 5, LineP99ms: 0.7},
		{Heap: 800, Stacks: 100, LatenessP99ms: p(2), TickerP99ms: p(3), Lines: 5, LineP99ms: 0.6}, // no /proc
		{Heap: 99999, Error: "boom"},
	}}
	summarizeIdle(&row)
	if *row.Heap != 800 || *row.Stacks != 100 || *row.RSS != 1500 || *row.LatenessP99ms != 2 || *row.TickerP99ms != 3 || *row.LineP99ms != 0.6 {
		t.Errorf("row %+v", row)
	}
	dead := NetIdleRow{Label: "dead", ReadBuf: 64, Samples: []NetIdleSample{{Error: "boom"}}}
	summarizeIdle(&dead)
	var md bytes.Buffer
	writeNetIdleMarkdown(&md, &NetIdle{Conns: 10, Rows: []NetIdleRow{row, dead}}, 3)
	for _, want := range []string{"| x | none | 900 | 100 | 1500 | 2.00 ms | 3.00 ms | 0.60 ms |", "| dead | 64 B | failed |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
