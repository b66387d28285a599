package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
)

// tinyConfig is the quick mode shrunk further, for tests: the shape of the
// report is checked, never a timing.
func tinyConfig(t *testing.T) benchConfig {
	t.Helper()
	return benchConfig{
		drivers:  []string{eventloop.DefaultDriver()},
		nestingN: []int{10, 20},
		sizes:    costSizes{microtasks: 100, defers: 100, cycles: 50, rounds: 1},
		pairs:    2,
		runs:     1,
		quick:    true,
	}
}

func watchdog(t *testing.T, d time.Duration) {
	t.Helper()
	timer := time.AfterFunc(d, func() { panic("test " + t.Name() + " timed out") })
	t.Cleanup(func() { timer.Stop() })
}

// TestBenchReportShape runs bench's logic in process (the JSON that
// `bench --quick --format json` prints) and checks both tables: one row per
// N and rule, the nesting the rule prevents, and one cost row per case.
func TestBenchReportShape(t *testing.T) {
	watchdog(t, 2*time.Minute)
	cfg := tinyConfig(t)
	var progress bytes.Buffer
	cfg.progress = &progress
	rep, err := bench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Drivers) != 1 || back.Drivers[0].Driver != cfg.drivers[0] {
		t.Fatalf("drivers: %+v", back.Drivers)
	}
	d := back.Drivers[0]
	if got, want := len(d.Nesting), 2*len(cfg.nestingN); got != want {
		t.Fatalf("%d nesting rows, want %d", got, want)
	}
	for _, r := range d.Nesting {
		if r.Resumed != r.N {
			t.Errorf("N=%d rule %v: %d resumed", r.N, r.Rule, r.Resumed)
		}
		if r.GoroutinesClosed != 0 {
			t.Errorf("N=%d rule %v: %d goroutines left after Close", r.N, r.Rule, r.GoroutinesClosed)
		}
		if r.Rule {
			if r.DepthLast != r.DepthFirst || r.FibersLive != 0 {
				t.Errorf("rule on, N=%d: depth %d..%d, %d live", r.N, r.DepthFirst, r.DepthLast, r.FibersLive)
			}
		} else if r.DepthLast-r.DepthFirst != r.N-1 || r.FibersLive < r.N-1 {
			t.Errorf("rule off, N=%d: depth %d..%d, %d live: no nesting shown", r.N, r.DepthFirst, r.DepthLast, r.FibersLive)
		}
	}
	if got, want := len(d.Cost), len(costCases(cfg.sizes)); got != want {
		t.Fatalf("%d cost rows, want %d", got, want)
	}
	for _, c := range d.Cost {
		if c.Ops <= 0 || c.OnMS <= 0 || c.OffMS <= 0 ||
			c.RuleCostLowPct > c.RuleCostPct || c.RuleCostPct > c.RuleCostHighPct {
			t.Errorf("cost row %+v", c)
		}
	}
	if len(back.Floors) != 3 || len(back.Targets) == 0 {
		t.Errorf("%d floors, %d targets", len(back.Floors), len(back.Targets))
	}
	if got, want := len(back.Watchdog), len(watchdogCaseNames); got != want || back.WatchdogDriver != cfg.drivers[0] {
		t.Errorf("%d watchdog rows on %q, want %d on %q", got, back.WatchdogDriver, want, cfg.drivers[0])
	}
	for _, r := range back.Watchdog {
		if r.Ops <= 0 || r.OffNsOp <= 0 || r.OnNsOp <= 0 || r.CostLowPct > r.CostPct || r.CostPct > r.CostHighPct {
			t.Errorf("watchdog row %+v", r)
		}
	}
	// One progress line per nesting row, cost case, watchdog case and floor.
	lines := strings.Count(progress.String(), "\n")
	if want := len(d.Nesting) + len(d.Cost) + len(back.Watchdog) + len(back.Floors); lines != want {
		t.Errorf("%d progress lines, want %d", lines, want)
	}

	var md bytes.Buffer
	writeMarkdown(&md, &back)
	for _, s := range []string{"Table 1", "Table 2", "Table 3", "| 20 | off |", "rule cost [95%]", "Floors", "Targets"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

func TestMedianCI(t *testing.T) {
	xs := make([]float64, 15)
	for i := range xs {
		xs[i] = float64(15 - i) // 15..1, unsorted
	}
	// n = 15: the 4th and the 12th value (a sign test at 95%).
	if m, lo, hi := medianCI(xs); m != 8 || lo != 4 || hi != 12 {
		t.Errorf("n=15: %v [%v, %v], want 8 [4, 12]", m, lo, hi)
	}
	// Too few values for 95%: the whole range.
	if m, lo, hi := medianCI([]float64{3, 1, 2, 4}); m != 2.5 || lo != 1 || hi != 4 {
		t.Errorf("n=4: %v [%v, %v], want 2.5 [1, 4]", m, lo, hi)
	}
}

func TestDriversCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"drivers"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "New():    "+eventloop.DefaultDriver()) {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"nope"},
		{"bench", "--format", "xml"},
		{"bench", "--driver", "nope"},
		{"bench", "--against", "elsewhere"}, // without --net or --http
		{"bench", "--files", "1k"},          // without --http
		{"bench", "--net", "--hello=false"},
		{"bench", "--http", "--files", "1x"},
		{"bench", "--http", "--files", "none", "--hello=false", "--proxy=false", "--tls=false"}, // no table
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code == 0 {
			t.Errorf("%q: exit 0", args)
		}
	}
}

// A command's --help lists its flags and exits 0, as the top-level help.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"bench", "--help"}, {"drivers", "--help"}, {"echo", "-h"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errOut.String())
		}
		if out.Len()+errOut.Len() == 0 || strings.Contains(errOut.String(), "help requested") {
			t.Errorf("%q: stdout %q, stderr %q", args, out.String(), errOut.String())
		}
	}
}

func TestPeersMarkdown(t *testing.T) {
	raw := json.RawMessage(`{"driver":"x","runs":1,"rows":[{"case":"a","ops":1,"ns_op":2,"allocs_op":0}],
		"ratios":[{"what":"a / b","value":3,"limit":"≥ 5×","met":false}]}`)
	var w bytes.Buffer
	writePeersMarkdown(&w, raw)
	if !strings.Contains(w.String(), "| a / b | informational | 3.0× | ≥ 5× | **no** |") {
		t.Errorf("peers markdown:\n%s", w.String())
	}
}

func TestSVG(t *testing.T) {
	rep := &Report{Drivers: []DriverReport{{Driver: "x", Nesting: []NestingRow{
		{N: 100, Rule: false, DepthLast: 102, MemAfter: 1 << 20},
		{N: 100, Rule: true, DepthLast: 3, MemAfter: 1 << 19},
		{N: 1000, Rule: false, DepthLast: 1002, MemAfter: 10 << 20},
		{N: 1000, Rule: true, DepthLast: 3, MemAfter: 1 << 20},
	}}}}
	var w bytes.Buffer
	if err := writeSVG(&w, rep); err != nil {
		t.Fatal(err)
	}
	s := w.String()
	if !strings.HasPrefix(s, "<svg") || strings.Count(s, "<polyline") != 4 || !strings.HasSuffix(s, "</svg>\n") {
		t.Errorf("svg:\n%s", s)
	}
	if err := writeSVG(&w, &Report{}); err == nil {
		t.Error("empty report: no error")
	}
}

// A rule cost over its limit whose interval reaches the limit is within
// noise, not a miss; one whose interval is all above it is a miss.
func TestRuleCostNoise(t *testing.T) {
	rep := &Report{Drivers: []DriverReport{{Driver: "x", Cost: []CostRow{
		{Case: "spans zero", RuleCostPct: 3, RuleCostLowPct: -2, RuleCostHighPct: 8},
		{Case: "above", RuleCostPct: 3, RuleCostLowPct: 2, RuleCostHighPct: 4},
		{Case: "under", RuleCostPct: 0.5, RuleCostLowPct: -1, RuleCostHighPct: 2},
	}}}}
	verdict := map[string]string{}
	for _, tg := range targets(rep) {
		switch {
		case tg.Noise:
			verdict[tg.What] = "noise"
		case tg.Met:
			verdict[tg.What] = "met"
		default:
			verdict[tg.What] = "no"
		}
	}
	for c, want := range map[string]string{"spans zero": "noise", "above": "no", "under": "met"} {
		if got := verdict["rule cost, "+c+" (%, median of the pairs)"]; got != want {
			t.Errorf("%s: %q, want %q", c, got, want)
		}
	}
}
