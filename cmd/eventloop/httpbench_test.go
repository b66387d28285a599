//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHTTPBenchTiny runs the HTTP benchmark end to end in its smallest
// shape: our server with one loop and with one per core, 4 connections,
// one-second windows, the servers processes of this test binary. It
// checks the rows (a rate, latencies, CPU and allocations per request
// measured, the ratio between our two servers), never a speed, and that
// no process or goroutine is left.
func TestHTTPBenchTiny(t *testing.T) {
	watchdog(t, 2*time.Minute)
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatalf("wrk is not installed (ci/install-http-tools.sh): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g0 := runtime.NumGoroutine()
	var pids []int
	var progress bytes.Buffer
	cfg := httpConfig{conns: []int{4}, threads: 2, warmup: time.Second, window: time.Second, reps: 1, quick: true,
		self: self, selfEnv: []string{testCommandEnv + "=1"}, progress: &progress,
		against: self, // another build's servers: here the same one
		started: func(pid int) { pids = append(pids, pid) }}
	rep, err := httpBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())
	if len(rep.Failures) > 0 {
		t.Fatalf("failures: %+v", rep.Failures)
	}
	if len(rep.Tables) != 1 || len(rep.Tables[0].Rows) != 4 {
		t.Fatalf("tables: %+v", rep.Tables)
	}
	for _, row := range rep.Tables[0].Rows {
		if row.Rate <= 0 || row.P50ms == nil || row.P99ms == nil || *row.P99ms < *row.P50ms || row.CPUus == nil ||
			row.Allocs == nil || *row.Allocs <= 0 || row.AllocBytes == nil {
			t.Errorf("row %+v", row)
		}
		if row.Ratio != nil {
			t.Errorf("%s: a ratio without net/http in the run", row.Label)
		}
	}
	// Four servers (ours and against, 1 loop and one per core), each with
	// a warm-up and a measured wrk.
	if len(pids) != 12 {
		t.Errorf("processes started: %v, want 4 servers and 8 wrk runs", pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there (kill 0: %v)", pid, err)
		}
	}
	if n := goroutinesSettle(g0); n > g0 {
		t.Errorf("%d goroutines left, %d before", n, g0)
	}
	var md bytes.Buffer
	writeHTTPMarkdown(&md, rep)
	for _, want := range []string{"### 4 connections\n", "| ours, default driver, 1 loop | ", " loops | ", "| against, default driver, 1 loop | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}

// TestHTTPBenchFilesTiny runs the static-file tables end to end in their
// smallest shape: our server (httpserve --dir) serving files of 1 KiB and
// 100 KiB, 4 connections, one-second windows, and an --against build
// older than the files mode (a script that fails on --dir as the old
// flag set does), whose file rows are skipped with a note, not failed.
// It checks the rows, the note, the tables' files, that the directory is
// removed and that no process or goroutine is left.
func TestHTTPBenchFilesTiny(t *testing.T) {
	watchdog(t, 2*time.Minute)
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatalf("wrk is not installed (ci/install-http-tools.sh): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	old := filepath.Join(tmp, "old-eventloop")
	script := "#!/bin/sh\nfor a; do if [ \"$a\" = --dir ]; then echo 'flag provided but not defined: -dir' >&2; exit 2; fi; done\nexec \"$0.real\" \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, old+".real"); err != nil {
		t.Fatal(err)
	}
	filesTmp := filepath.Join(tmp, "tmp") // the run's TMPDIR: its files directory goes there
	if err := os.Mkdir(filesTmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filesTmp)
	g0 := runtime.NumGoroutine()
	var pids []int
	var progress bytes.Buffer
	cfg := httpConfig{files: []int64{1 << 10, 100 << 10}, fileConns: []int{4}, threads: 2,
		warmup: time.Second, window: time.Second, reps: 1, quick: true,
		self: self, selfEnv: []string{testCommandEnv + "=1"}, progress: &progress, against: old,
		started: func(pid int) { pids = append(pids, pid) }}
	rep, err := httpBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())
	if len(rep.Failures) > 0 {
		t.Fatalf("failures: %+v", rep.Failures)
	}
	if len(rep.Tables) != 2 {
		t.Fatalf("tables: %+v", rep.Tables)
	}
	for i, want := range []struct {
		file  string
		bytes int64
	}{{"1KiB.html", 1 << 10}, {"100KiB.html", 100 << 10}} {
		tb := rep.Tables[i]
		if tb.File != want.file || tb.FileBytes != want.bytes || tb.Conns != 4 || len(tb.Rows) != 1 {
			t.Errorf("table %d: %+v, want %s of %d bytes, 4 connections, our row alone", i, tb, want.file, want.bytes)
			continue
		}
		row := tb.Rows[0]
		if row.Server != "ours-files" || row.Rate <= 0 || row.P50ms == nil || row.P99ms == nil || row.CPUus == nil ||
			row.Allocs == nil || *row.Allocs <= 0 || row.AllocBytes == nil || row.Ratio != nil {
			t.Errorf("table %d: row %+v", i, row)
		}
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "against, default driver, 1 loop: no static-file rows") ||
		!strings.Contains(rep.Notes[0], "does not know --dir") {
		t.Errorf("notes: %q", rep.Notes)
	}
	if len(rep.Servers) != 1 || !slices.Contains(rep.Servers[0].Command, "--dir") || !slices.Contains(rep.Servers[0].Command, "DIR") {
		t.Errorf("servers: %+v", rep.Servers)
	}
	// Our server: a start and two cells of two wrk runs each; the old
	// build's three attempts to start.
	if len(pids) != 8 {
		t.Errorf("processes started: %v, want 1 + 4 wrk runs + 3 attempts of the old build", pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there (kill 0: %v)", pid, err)
		}
	}
	if n := goroutinesSettle(g0); n > g0 {
		t.Errorf("%d goroutines left, %d before", n, g0)
	}
	if left, _ := os.ReadDir(filesTmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	var md bytes.Buffer
	writeHTTPMarkdown(&md, rep)
	for _, want := range []string{"## HTTP: static files of 1 KiB, 100 KiB (http.FileServer), ",
		"### static file of 1 KiB (GET /1KiB.html), 4 connections\n", "### static file of 100 KiB (GET /100KiB.html), 4 connections\n",
		"| ours, default driver, 1 loop | ", "- ours, default driver, 1 loop, static files: `"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "Hello") {
		t.Errorf("markdown of the file tables alone names the hello tables:\n%s", md.String())
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}

func TestParseFileSizes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int64
	}{
		{"1k,100k,5m", []int64{1 << 10, 100 << 10, 5 << 20}},
		{"1KiB, 2MiB,512,512B,1K", []int64{1 << 10, 2 << 20, 512}},
		{"none", nil},
	} {
		got, err := parseFileSizes(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "1x", "0", "-1k", "2g", "1025m", "1k,,2k"} {
		if got, err := parseFileSizes(in); err == nil {
			t.Errorf("%q: %v, no error", in, got)
		}
	}
	if fileName(1<<10) != "1KiB.html" || fileName(5<<20) != "5MiB.html" || fileName(1000) != "1000B.html" {
		t.Error(fileName(1<<10), fileName(5<<20), fileName(1000))
	}
}

// wrk 4.1's summary with --latency, and with both error lines.
const wrkSample = `Running 3s test @ http://127.0.0.1:8080/
  2 threads and 128 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.41ms    3.02ms  45.10ms   89.50%
    Req/Sec    30.12k     2.11k   35.00k    70.00%
  Latency Distribution
     50%    1.52ms
     75%    2.80ms
     90%    5.01ms
     99%   15.30ms
  179834 requests in 3.01s, 22.12MB read
  Socket errors: connect 0, read 3, write 1, timeout 2
  Non-2xx or 3xx responses: 7
Requests/sec:  59745.18
Transfer/sec:      7.35MB
`

func TestParseWrkSummary(t *testing.T) {
	w, err := parseWrkSummary(wrkSample)
	if err != nil {
		t.Fatal(err)
	}
	want := wrkSummary{requests: 179834, seconds: 3.01, rate: 59745.18, p50ms: 1.52, p99ms: 15.30, socketErrors: 6, non2xx: 7}
	if math.Abs(w.p50ms-want.p50ms) > 1e-9 || math.Abs(w.p99ms-want.p99ms) > 1e-9 {
		t.Errorf("latencies %v %v", w.p50ms, w.p99ms)
	}
	w.p50ms, w.p99ms = want.p50ms, want.p99ms
	if w != want {
		t.Errorf("got %+v, want %+v", w, want)
	}
	us := strings.NewReplacer("1.52ms", "812.00us", "15.30ms", "1.20s").Replace(wrkSample)
	if w, _ := parseWrkSummary(us); math.Abs(w.p50ms-0.812) > 1e-9 || math.Abs(w.p99ms-1200) > 1e-9 {
		t.Errorf("units: p50 %v p99 %v", w.p50ms, w.p99ms)
	}
	if _, err := parseWrkSummary("unable to connect to 127.0.0.1:1 Connection refused"); err == nil {
		t.Error("no error for a run that made no request")
	}
}

// The ratio is taken repetition by repetition, and a failed sample is
// left out of every median.
func TestSummarizeHTTP(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tb := HTTPTable{Conns: 16, Rows: []HTTPRow{
		{Server: httpBaseline, Samples: []HTTPSample{{Rep: 0, Rate: 100}, {Rep: 1, Rate: 200}, {Rep: 2, Rate: 50, Error: "x"}}},
		{Server: "ours", Samples: []HTTPSample{{Rep: 0, Rate: 150, Allocs: f(2), AllocBytes: f(10)}, {Rep: 1, Rate: 200, Allocs: f(4), AllocBytes: f(30)}, {Rep: 2, Rate: 1e6, Error: "y"}}},
	}}
	summarizeHTTP(&tb, httpBaseline)
	ours := tb.Rows[1]
	if ours.Rate != 175 || ours.Ratio == nil || *ours.Ratio != 1.25 || *ours.Allocs != 3 || *ours.AllocBytes != 20 {
		t.Errorf("ours: rate %v ratio %v allocs %v", ours.Rate, ours.Ratio, ours.Allocs)
	}
	if base := tb.Rows[0]; base.Rate != 150 || *base.Ratio != 1 || base.Allocs != nil {
		t.Errorf("baseline: %+v", base)
	}
}
