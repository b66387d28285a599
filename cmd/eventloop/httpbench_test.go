//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
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
