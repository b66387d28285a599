package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What is counted is a check; what is timed is informational.
func TestTargetKinds(t *testing.T) {
	rep := &Report{
		Floors: []FloorRow{{Name: floorFIFO, NsOp: 2}, {Name: floorPull, NsOp: 70}},
		Drivers: []DriverReport{{Driver: "x",
			Nesting: []NestingRow{{N: 10, Rule: true, DepthFirst: 3, DepthLast: 3}, {N: 10, DepthFirst: 3, DepthLast: 12, FibersLive: 10}},
			Cost: []CostRow{
				{Case: "microtasks (Queue)", OnNsOp: 5, UpstreamMS: 1, FasterUpstream: 20},
				{Case: "suspend/resume: queued microtask, in a fiber", OnNsOp: 100},
				{Case: "suspend/resume: Defer, in a fiber", OnNsOp: 200},
			}}},
	}
	counted := []string{"rule on: depth", "rule on: fibers live", "rule on: bytes", "rule off: depth", "rule off: fibers", "goroutines left"}
	timed := []string{"rule cost", "faster than upstream", " / "}
	seen := map[string]bool{}
	for _, tg := range targets(rep) {
		want := ""
		for _, p := range counted {
			if strings.HasPrefix(tg.What, p) {
				want, seen[p] = kindCheck, true
			}
		}
		for _, p := range timed {
			if strings.Contains(tg.What, p) {
				want, seen[p] = kindInfo, true
			}
		}
		if want == "" {
			t.Errorf("target %q: neither counted nor timed by this test's lists", tg.What)
		} else if tg.Kind != want {
			t.Errorf("target %q: kind %q, want %q", tg.What, tg.Kind, want)
		}
	}
	for _, p := range append(counted, timed...) {
		if !seen[p] {
			t.Errorf("no target %q", p)
		}
	}
}

// A check not met fails the command after the report is printed, in
// either format; an informational target not met does not.
func TestUnmetCheckFails(t *testing.T) {
	for _, format := range []string{"markdown", "json"} {
		info := &Report{Targets: []Target{
			{Kind: kindCheck, Driver: "x", What: "counted", Limit: "= 0", Met: true},
			{Kind: kindInfo, Driver: "x", What: "timed", Value: 0.7, Limit: "≥ 5", Met: false},
		}}
		var out bytes.Buffer
		if err := writeBenchReport(&out, info, format); err != nil {
			t.Errorf("%s: an informational miss failed the run: %v", format, err)
		}
		check := &Report{Targets: append(info.Targets,
			Target{Kind: kindCheck, Driver: "x", What: "fibers left", Value: 3, Limit: "= 0", Met: false})}
		out.Reset()
		err := writeBenchReport(&out, check, format)
		if err == nil || !strings.Contains(err.Error(), "x: fibers left = 3, want = 0") || strings.Contains(err.Error(), "timed") {
			t.Errorf("%s: a missed check gave %v, want an error naming it alone", format, err)
		}
		if !strings.Contains(out.String(), "fibers left") {
			t.Errorf("%s: the report was not printed before the failure:\n%s", format, out.String())
		}
	}
	var md bytes.Buffer
	writeMarkdown(&md, &Report{Targets: []Target{{Kind: kindInfo, Driver: "x", What: "timed", Value: 0.7, Limit: "≥ 5"}}})
	for _, s := range []string{"| x | timed | informational | 0.70 | ≥ 5 | **no** |", "the command does not fail on it"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, md.String())
		}
	}
}

// bench opens with what a user asks (HTTP against net/http and fasthttp,
// echo against the standard library and gnet, an idle conn's memory),
// labelled as recorded figures and pointing to the commands that measure
// them, before the scheduler's tables.
func TestMarkdownOpensWithRecordedFigures(t *testing.T) {
	var md bytes.Buffer
	writeMarkdown(&md, &Report{Drivers: []DriverReport{{Driver: "x"}}})
	s := md.String()
	first := strings.Index(s, "Table 1")
	if first < 0 {
		t.Fatalf("no Table 1:\n%s", s)
	}
	head := s[:first]
	for _, want := range []string{"recorded figures, not this run's", "net/http", "fasthttp", "gnet", "nbio",
		"requests/s", "TCP echo", "idle conn", "2026-12-0", "eventloop bench --http --quick", "eventloop bench --net --quick"} {
		if !strings.Contains(head, want) {
			t.Errorf("before Table 1, no %q:\n%s", want, head)
		}
	}
	if n := strings.Count(head, "\n"); n > 20 {
		t.Errorf("%d lines before Table 1, want at most 20", n)
	}
}

// The recorded figures are the docs' own: each comes from a row of their
// tables that is still there, word for word.
func TestRecordedFiguresInDocs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, f := range append(files, filepath.Join("..", "..", "README.md")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	for _, r := range recorded {
		if len(r.sources) == 0 {
			t.Errorf("%q names no source", r.measure)
		}
		for _, src := range r.sources {
			if !strings.Contains(docs.String(), src) {
				t.Errorf("%q: the docs have no row %q", r.measure, src)
			}
		}
	}
}
