//go:build unix

package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestHTTPBenchTiny runs the HTTP benchmark end to end in its smallest
// shape: our server with one loop and with one per core, 4 connections
// (keep-alive, pipelined, and a connection per request), one-second
// windows, the servers processes of this test binary. It
// checks the rows (a rate, latencies, CPU and allocations per request
// measured, the ratio between our two servers), never a speed, and that
// no process or goroutine is left.
// tinyRun is the benchRun of the tiny end-to-end tests: one short
// repetition of self's servers beside against's, logging to progress, each
// process started recorded in pids.
func tinyRun(self, against string, progress *bytes.Buffer, pids *[]int) benchRun {
	return benchRun{warmup: time.Second, window: time.Second, reps: 1, quick: true,
		self: self, selfEnv: []string{testCommandEnv + "=1"}, progress: progress, against: against,
		started: func(pid int) { *pids = append(*pids, pid) }}
}

// tinyHTTPBench runs cfg and fails t unless it made that many tables
// without a failure.
func tinyHTTPBench(t *testing.T, cfg httpConfig, tables int) *HTTPReport {
	t.Helper()
	rep, err := httpBench(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", cfg.progress)
	if len(rep.Failures) > 0 {
		t.Fatalf("failures: %+v", rep.Failures)
	}
	if len(rep.Tables) != tables {
		t.Fatalf("tables: %+v", rep.Tables)
	}
	return rep
}

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
	// against: another build's servers, here the same one.
	cfg := httpConfig{conns: []int{4}, pipeConns: []int{4}, closeConns: []int{4}, threads: 2, benchRun: tinyRun(self, self, &progress, &pids)}
	rep := tinyHTTPBench(t, cfg, 3)
	if len(rep.Tables[0].Rows) != 4 || len(rep.Tables[1].Rows) != 4 || rep.Tables[1].Pipeline != httpPipelineDepth ||
		len(rep.Tables[2].Rows) != 4 || !rep.Tables[2].Close {
		t.Fatalf("tables: %+v", rep.Tables)
	}
	for _, row := range rep.Tables[1].Rows {
		// wrk keeps no latencies when it pipelines.
		if row.Rate <= 0 || row.P50ms != nil || row.P99ms != nil || row.CPUus == nil || row.Allocs == nil || *row.Allocs <= 0 {
			t.Errorf("pipelined row %+v", row)
		}
	}
	for _, row := range slices.Concat(rep.Tables[0].Rows, rep.Tables[2].Rows) {
		if row.Rate <= 0 || row.P50ms == nil || row.P99ms == nil || *row.P99ms < *row.P50ms || row.CPUus == nil ||
			row.Allocs == nil || *row.Allocs <= 0 || row.AllocBytes == nil {
			t.Errorf("row %+v", row)
		}
		if row.Ratio != nil {
			t.Errorf("%s: a ratio without net/http in the run", row.Label)
		}
	}
	// Four servers (ours and against, 1 loop and one per core), each with
	// a warm-up and a measured wrk per table.
	if len(pids) != 28 {
		t.Errorf("processes started: %v, want 4 servers and 24 wrk runs", pids)
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
	for _, want := range []string{"### \"Hello, World!\", 4 connections\n", "### \"Hello, World!\", pipelined 16 deep, 4 connections\n", "### \"Hello, World!\", a connection per request, 4 connections\n", "| ours, default driver, 1 loop | ", " loops | ", "| against, default driver, 1 loop | "} {
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
	self, old, filesTmp := olderBuild(t, "--dir")
	g0 := runtime.NumGoroutine()
	var pids []int
	var progress bytes.Buffer
	cfg := httpConfig{files: []int64{1 << 10, 100 << 10}, fileConns: []int{4}, threads: 2,
		benchRun: tinyRun(self, old, &progress, &pids)}
	rep := tinyHTTPBench(t, cfg, 2)
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
	nothingLeft(t, pids, g0, filesTmp)
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
	want := wrkSummary{requests: 179834, seconds: 3.01, rate: 59745.18, p50ms: 1.52, p99ms: 15.30, socketErrors: 6, non2xx: 7,
		socketDetail: "connect 0, read 3, write 1, timeout 2"}
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

// TestHTTPBenchProxyTLSTiny runs the reverse-proxy and HTTPS tables end
// to end in their smallest shape: the backend, our proxy (httpserve
// --proxy) and our HTTPS server (httpserve --cert --key), each with one
// loop and one per core, 4 connections, one-second windows, the HTTPS
// table with a handshake per request; and an --against build older than
// both modes (a script that fails on --proxy and --cert as the old flag
// set does), whose rows are skipped with notes, not failed. It checks the
// rows, the notes, the commands shown, that the run's directory (the
// certificate) is removed and that no process or goroutine is left, the
// backend's included.
func TestHTTPBenchProxyTLSTiny(t *testing.T) {
	watchdog(t, 2*time.Minute)
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatalf("wrk is not installed (ci/install-http-tools.sh): %v", err)
	}
	self, old, runTmp := olderBuild(t, "--proxy", "--cert")
	g0 := runtime.NumGoroutine()
	var pids []int
	var progress bytes.Buffer
	cfg := httpConfig{proxyConns: []int{4}, tlsCloseConns: []int{4}, threads: 2,
		benchRun: tinyRun(self, old, &progress, &pids)}
	rep := tinyHTTPBench(t, cfg, 2)
	for i, want := range []struct {
		mode, baseline string
		close          bool
		rows           []string
	}{
		{modeProxy, "nethttp-proxy", false, []string{"ours-proxy", "ours-loops-proxy"}},
		{modeTLS, "nethttp-tls", true, []string{"ours-tls", "ours-loops-tls"}},
	} {
		tb := rep.Tables[i]
		var keys []string
		for _, row := range tb.Rows {
			keys = append(keys, row.Server)
			if row.Rate <= 0 || row.P50ms == nil || row.P99ms == nil || row.CPUus == nil ||
				row.Allocs == nil || *row.Allocs <= 0 || row.AllocBytes == nil || row.Ratio != nil {
				t.Errorf("table %d: row %+v", i, row)
			}
		}
		if tb.Mode != want.mode || tb.Close != want.close || tb.Baseline != want.baseline || tb.Conns != 4 || !slices.Equal(keys, want.rows) {
			t.Errorf("table %d: %+v, want mode %s, close %v, baseline %s, rows %v", i, tb, want.mode, want.close, want.baseline, want.rows)
		}
	}
	if len(rep.Notes) != 4 {
		t.Errorf("notes: %q", rep.Notes)
	}
	for _, want := range []string{"against, default driver, 1 loop: no reverse-proxy rows: its httpserve does not know --proxy",
		"loops: no reverse-proxy rows: its httpserve does not know --proxy",
		"against, default driver, 1 loop: no HTTPS rows: its httpserve does not know --cert",
		"loops: no HTTPS rows: its httpserve does not know --cert"} {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note says %q: %q", want, rep.Notes)
		}
	}
	var commands []string
	for _, s := range rep.Servers {
		commands = append(commands, s.Label+": "+strings.Join(s.Command, " "))
	}
	n := runtime.NumCPU()
	wantCommands := []string{
		"ours, default driver, 1 loop, reverse proxy: " + filepath.Base(self) + " httpserve --loops 1 --proxy BACKEND ADDR",
		fmt.Sprintf("ours, default driver, %d loops, reverse proxy: %s httpserve --loops %d --proxy BACKEND ADDR", n, filepath.Base(self), n),
		"ours, default driver, 1 loop, HTTPS: " + filepath.Base(self) + " httpserve --loops 1 --cert CERT --key KEY ADDR",
		fmt.Sprintf("ours, default driver, %d loops, HTTPS: %s httpserve --loops %d --cert CERT --key KEY ADDR", n, filepath.Base(self), n),
		"backend of the reverse proxies, ours, default driver, 1 loop: " + filepath.Base(self) + " httpserve --loops 1 BACKEND",
	}
	if !slices.Equal(commands, wantCommands) {
		t.Errorf("servers:\n%s\nwant\n%s", strings.Join(commands, "\n"), strings.Join(wantCommands, "\n"))
	}
	// The backend; our four servers, each a start and two wrk runs; the
	// old build's three attempts to start, for each of its four servers.
	if len(pids) != 1+4*3+4*3 {
		t.Errorf("processes started: %v, want the backend, 4 servers, 8 wrk runs and 12 attempts of the old build", pids)
	}
	nothingLeft(t, pids, g0, runTmp)
	var md bytes.Buffer
	writeHTTPMarkdown(&md, rep)
	for _, want := range []string{"### reverse proxy to a hello backend, 4 connections\n",
		"### HTTPS, a handshake per request, 4 connections\n", "| ours, default driver, 1 loop | ",
		"- backend of the reverse proxies, ours, default driver, 1 loop: `"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "static file") || strings.Contains(md.String(), "### \"Hello") {
		t.Errorf("markdown names tables that were not measured:\n%s", md.String())
	}
}

// The flags of bench --http pick the tables: --proxy=false and
// --tls=false drop theirs, --quick keeps a small one of each (without
// nbio), and a run
// with no table left, or those flags without --http, is refused.
func TestHTTPConfigFor(t *testing.T) {
	all := httpOptions{hello: true, proxy: true, tls: true, peers: true}
	cfg, err := httpConfigFor(all)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.conns, []int{16, 128}) || !slices.Equal(cfg.pipeConns, []int{128}) || !slices.Equal(cfg.closeConns, []int{64}) || len(cfg.files) != 3 || !slices.Equal(cfg.proxyConns, []int{16, 128}) ||
		!slices.Equal(cfg.tlsConns, []int{16, 128}) || !slices.Equal(cfg.tlsCloseConns, []int{16}) || cfg.quick || !cfg.peers || !cfg.nbio {
		t.Errorf("full: %+v", cfg)
	}
	quick := all
	quick.quick = true
	if cfg, err = httpConfigFor(quick); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.conns, []int{16}) || !slices.Equal(cfg.pipeConns, []int{16}) || !slices.Equal(cfg.closeConns, []int{16}) || len(cfg.files) != 1 || !slices.Equal(cfg.proxyConns, []int{16}) ||
		!slices.Equal(cfg.tlsConns, []int{16}) || cfg.tlsCloseConns != nil || !cfg.quick || cfg.nbio {
		t.Errorf("quick: %+v", cfg)
	}
	noProxy := all
	noProxy.proxy = false
	if cfg, err = httpConfigFor(noProxy); err != nil || cfg.proxyConns != nil || cfg.tlsConns == nil || cfg.conns == nil {
		t.Errorf("--proxy=false: %+v, %v", cfg, err)
	}
	noTLS := all
	noTLS.tls = false
	if cfg, err = httpConfigFor(noTLS); err != nil || cfg.tlsConns != nil || cfg.tlsCloseConns != nil || cfg.proxyConns == nil {
		t.Errorf("--tls=false: %+v, %v", cfg, err)
	}
	onlyTLS := httpOptions{tls: true, files: "none"}
	if cfg, err = httpConfigFor(onlyTLS); err != nil || cfg.conns != nil || cfg.pipeConns != nil || cfg.closeConns != nil || cfg.files != nil || cfg.proxyConns != nil || cfg.tlsConns == nil {
		t.Errorf("HTTPS alone: %+v, %v", cfg, err)
	}
	if _, err := httpConfigFor(httpOptions{files: "none"}); err == nil || !strings.Contains(err.Error(), "no table left") {
		t.Errorf("no table: %v", err)
	}
	// Through the command's flags: refused before anything runs.
	for _, args := range [][]string{
		{"bench", "--proxy=false"},
		{"bench", "--tls=false"},
		{"bench", "--net", "--tls=false"},
		{"bench", "--http", "--files", "none", "--hello=false", "--proxy=false", "--tls=false"},
		{"bench", "--http", "--proxy=maybe"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code == 0 {
			t.Errorf("%q: exit 0", args)
		} else if !strings.Contains(errOut.String(), "--tls") && !strings.Contains(errOut.String(), "-proxy") {
			t.Errorf("%q: %s", args, errOut.String())
		}
	}
}

// The tables of each mode, in order, with their rows, cells and
// baselines; a mode without servers has none, and a server with noClose
// has no row in the tables of a connection per request.
func TestHTTPTables(t *testing.T) {
	srv := func(key string) httpServer { return httpServer{benchServer: benchServer{key: key, label: key}} }
	nbio := srv("nbio-tls")
	nbio.noClose = "no"
	nbioHello := srv("nbio")
	nbioHello.noClose = "no"
	cfg := httpConfig{conns: []int{16}, pipeConns: []int{128}, closeConns: []int{64}, files: []int64{1 << 10}, fileConns: []int{16},
		proxyConns: []int{16, 128}, tlsConns: []int{16, 128}, tlsCloseConns: []int{16}}
	tables, servers := httpTables(cfg, httpGroups{
		hello: []httpServer{srv("nethttp"), nbioHello, srv("ours")},
		proxy: []httpServer{srv("nethttp-proxy"), srv("ours-proxy")},
		tls:   []httpServer{srv("nethttp-tls"), nbio, srv("ours-tls")},
	})
	type tab struct {
		mode     string
		conns    int
		close    bool
		pipeline int
		baseline string
		rows     int
	}
	var got []tab
	for _, tb := range tables {
		got = append(got, tab{tb.Mode, tb.Conns, tb.Close, tb.Pipeline, tb.Baseline, len(tb.Rows)})
	}
	want := []tab{
		{modeHello, 16, false, 0, "nethttp", 3}, {modeHello, 128, false, httpPipelineDepth, "nethttp", 3}, {modeHello, 64, true, 0, "nethttp", 2}, // nbio: noClose
		{modeProxy, 16, false, 0, "nethttp-proxy", 2}, {modeProxy, 128, false, 0, "nethttp-proxy", 2},
		{modeTLS, 16, false, 0, "nethttp-tls", 3}, {modeTLS, 128, false, 0, "nethttp-tls", 3}, {modeTLS, 16, true, 0, "nethttp-tls", 2}, // nbio: noClose
	}
	if !slices.Equal(got, want) {
		t.Errorf("tables %+v\nwant %+v", got, want)
	}
	if len(servers) != 8 {
		t.Fatalf("servers: %+v", servers)
	}
	ours := servers[7]
	wantCells := []httpCell{{path: "/", conns: 16, table: 5, row: 2}, {path: "/", conns: 128, table: 6, row: 2}, {path: "/", conns: 16, close: true, table: 7, row: 1}}
	if ours.key != "ours-tls" || !slices.Equal(ours.cells, wantCells) {
		t.Errorf("%s: cells %+v, want %+v", ours.key, ours.cells, wantCells)
	}
	if c := servers[2].cells; len(c) != 3 || c[1] != (httpCell{path: "/", conns: 128, pipeline: httpPipelineDepth, table: 1, row: 2}) ||
		c[2] != (httpCell{path: "/", conns: 64, close: true, table: 2, row: 1}) {
		t.Errorf("ours, hello: cells %+v, want the pipelined table's third row and the second of a connection per request", c)
	}
	if len(servers[1].cells) != 2 || len(servers[6].cells) != 2 {
		t.Errorf("nbio: cells %+v and %+v, want the keep-alive tables' alone", servers[1].cells, servers[6].cells)
	}
	for _, s := range servers {
		for _, c := range s.cells {
			if tables[c.table].Rows[c.row].Server != s.key {
				t.Errorf("%s: cell %+v is row %+v", s.key, c, tables[c.table].Rows[c.row])
			}
		}
	}
	if s := ourHTTPServers(httpConfig{benchRun: benchRun{self: "/x/eventloop"}}, modeTLS); s[0].failureMode(httpCell{close: true}) != "https, Connection: close" {
		t.Error(s[0].failureMode(httpCell{close: true}))
	}
}

// The command lines of the proxies and HTTPS servers, and wrk's.
func TestHTTPModeArgv(t *testing.T) {
	cfg := httpConfig{benchRun: benchRun{self: "/x/eventloop", against: "/y/eventloop"}, driver: "epoll"}
	n := runtime.NumCPU()
	type srv struct {
		key, label string
		against    bool
		argv       string
	}
	list := func(servers []httpServer) []srv {
		var out []srv
		for _, s := range servers {
			out = append(out, srv{s.key, s.name(), s.against, strings.Join(s.argv("A:1"), " ")})
		}
		return out
	}
	got := list(ourHTTPServers(cfg, modeProxy, "--proxy", "B:2"))
	want := []srv{
		{"ours-proxy", "ours, epoll, 1 loop, reverse proxy", false, "/x/eventloop httpserve --loops 1 --driver epoll --proxy B:2 A:1"},
		{"ours-loops-proxy", fmt.Sprintf("ours, epoll, %d loops, reverse proxy", n), false, fmt.Sprintf("/x/eventloop httpserve --loops %d --driver epoll --proxy B:2 A:1", n)},
		{"against-proxy", "against, epoll, 1 loop, reverse proxy", true, "/y/eventloop httpserve --loops 1 --driver epoll --proxy B:2 A:1"},
		{"against-loops-proxy", fmt.Sprintf("against, epoll, %d loops, reverse proxy", n), true, fmt.Sprintf("/y/eventloop httpserve --loops %d --driver epoll --proxy B:2 A:1", n)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("proxies:\n%+v\nwant\n%+v", got, want)
	}
	got = list(ourHTTPServers(cfg, modeTLS, "--cert", "C", "--key", "K"))
	if len(got) != 4 || got[0] != (srv{"ours-tls", "ours, epoll, 1 loop, HTTPS", false, "/x/eventloop httpserve --loops 1 --driver epoll --cert C --key K A:1"}) {
		t.Errorf("HTTPS: %+v", got)
	}
	if got := list(ourHTTPServers(cfg, modeFiles, "--dir", "D")); len(got) != 2 || got[1].key != "against-files" {
		t.Errorf("files: one loop alone: %+v", got)
	}
	got = list([]httpServer{
		httpPeer("/b/httppeers", httpBaseline, "net/http", modeProxy, "-proxy", "B:2"),
		httpPeer("/b/httppeers", httpBaseline, "net/http", modeTLS, "-cert", "C", "-key", "K"),
		httpPeer("/b/httppeers", "nbio", "nbio (nbhttp)", modeTLS, "-cert", "C", "-key", "K"),
		httpPeer("/b/httppeers", "fasthttp", "fasthttp", modeHello),
	})
	want = []srv{
		{"nethttp-proxy", "net/http, reverse proxy", false, "/b/httppeers -server nethttp -addr A:1 -max-life 1h -proxy B:2"},
		{"nethttp-tls", "net/http, HTTPS", false, "/b/httppeers -server nethttp -addr A:1 -max-life 1h -cert C -key K"},
		{"nbio-tls", "nbio (nbhttp), HTTPS", false, "/b/httppeers -server nbio -addr A:1 -max-life 1h -cert C -key K"},
		{"fasthttp", "fasthttp", false, "/b/httppeers -server fasthttp -addr A:1 -max-life 1h"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("peers:\n%+v\nwant\n%+v", got, want)
	}
	if b := ourBackend(cfg); b.key != "backend" || strings.Join(b.argv("A:1"), " ") != "/x/eventloop httpserve --loops 1 --driver epoll A:1" {
		t.Errorf("backend: %+v %q", b, b.argv("A:1"))
	}
	for _, c := range []struct {
		conns   int
		latency bool
		close   bool
		script  string
		url     string
		want    string
	}{
		{16, false, false, "", "https://h/", "-t2 -c16 -d2s --timeout 5s https://h/"},
		{16, true, true, "", "https://h/", "-t2 -c16 -d2s --timeout 5s --latency -H Connection: close https://h/"},
		{1, false, true, "", "http://h/", "-t1 -c1 -d2s --timeout 5s -H Connection: close http://h/"},
		{128, true, false, "/d/p.lua", "http://h/", "-t2 -c128 -d2s --timeout 5s --latency -s /d/p.lua http://h/"},
	} {
		args := wrkArgs(2, c.conns, 1500*time.Millisecond, c.latency, c.close, c.script, c.url)
		if got := strings.Join(args, " "); got != c.want {
			t.Errorf("wrk %s", got)
		}
		if c.close && !slices.Contains(args, "Connection: close") {
			t.Errorf("wrk %q: the header is not one argument", args)
		}
	}
}

// The run's certificate: crypto/tls loads it, it verifies for 127.0.0.1
// (not for 127.0.0.2, nor without the run's pool), and a TLS handshake
// over loopback with it succeeds; its key is the owner's alone.
func TestWriteCert(t *testing.T) {
	dir := t.TempDir()
	c, err := writeCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf := pair.Leaf
	if leaf == nil {
		t.Fatal("no leaf")
	}
	if pub, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || pub.Curve != elliptic.P256() {
		t.Errorf("public key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("verify for 127.0.0.1: %v", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.pool, DNSName: "127.0.0.2"}); err == nil {
		t.Error("verifies for 127.0.0.2 too")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: x509.NewCertPool(), DNSName: "127.0.0.1"}); err == nil {
		t.Error("verifies without the pool")
	}
	if fi, err := os.Stat(c.keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v", fi.Mode(), err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			err = conn.(*tls.Conn).Handshake()
			conn.Close()
		}
		done <- err
	}()
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: c.pool})
	if err != nil {
		t.Fatalf("handshake over loopback: %v", err)
	}
	conn.Close()
	if err := <-done; err != nil {
		t.Errorf("server's handshake: %v", err)
	}
	// And the benchmark's probe of an HTTPS server with it.
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeTLS(hl, c.certFile, c.keyFile)
	defer srv.Close()
	if err := c.probe(hl.Addr().String()); err != nil {
		t.Errorf("probe: %v", err)
	}
	if err := probeHTTP(hl.Addr().String()); err == nil {
		t.Error("plain HTTP probe of an HTTPS server: no error")
	}
}

// httpserve's flags of the proxy and HTTPS modes: refused before a loop
// is made when they do not go together.
func TestHTTPServeFlags(t *testing.T) {
	dir := t.TempDir()
	c, err := writeCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--proxy", "127.0.0.1:1", "--dir", dir, "127.0.0.1:0"},
		{"--proxy", "ftp://127.0.0.1:1", "127.0.0.1:0"},
		{"--proxy", "http://", "127.0.0.1:0"},
		{"--cert", c.certFile, "127.0.0.1:0"},
		{"--key", c.keyFile, "127.0.0.1:0"},
		{"--cert", c.keyFile, "--key", c.certFile, "127.0.0.1:0"},
		{"--cert", filepath.Join(dir, "none.pem"), "--key", c.keyFile, "127.0.0.1:0"},
	} {
		if err := httpServeCmd(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	for _, in := range []string{"127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080/base"} {
		if u, err := proxyTarget(in); err != nil || u.Host != "127.0.0.1:8080" || u.Scheme != "http" {
			t.Errorf("%q: %v, %v", in, u, err)
		}
	}
}

// The markdown of each mode's tables: its title, the ratio to its net/http
// row, and its paragraph; the JSON carries the mode.
func TestHTTPMarkdownModes(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := func(mode string) []HTTPRow {
		return []HTTPRow{
			{Server: modeKey(httpBaseline, mode), Label: "net/http", Samples: []HTTPSample{{Rate: 100, P50ms: 1, P99ms: 2, CPUus: f(3), Allocs: f(4), AllocBytes: f(5)}}},
			{Server: modeKey("ours", mode), Label: "ours, epoll, 1 loop", Samples: []HTTPSample{{Rate: 250, P50ms: 1, P99ms: 2, CPUus: f(3), Allocs: f(4), AllocBytes: f(5)}}},
		}
	}
	rep := &HTTPReport{Go: "go1", Platform: "linux/amd64", CPUs: 2, Reps: 1, Threads: 2, Wrk: "wrk 4", Tables: []HTTPTable{
		{Mode: modeHello, Conns: 16, Baseline: "nethttp", Rows: rows(modeHello)},
		{Mode: modeHello, Conns: 64, Close: true, Baseline: "nethttp", Rows: rows(modeHello)},
		{Mode: modeProxy, Conns: 128, Baseline: "nethttp-proxy", Rows: rows(modeProxy)},
		{Mode: modeTLS, Conns: 128, Baseline: "nethttp-tls", Rows: rows(modeTLS)},
		{Mode: modeTLS, Conns: 16, Close: true, Baseline: "nethttp-tls", Rows: rows(modeTLS)},
	}}
	for i := range rep.Tables {
		summarizeHTTP(&rep.Tables[i], rep.Tables[i].Baseline)
	}
	var md bytes.Buffer
	writeHTTPMarkdown(&md, rep)
	for _, want := range []string{
		"## HTTP: \"Hello, World!\", a reverse proxy (httputil.ReverseProxy) to a \"Hello, World!\" backend and \"Hello, World!\" over HTTPS, wrk -t2 (wrk 4)",
		"\nReverse proxy: ", "\nHTTPS: ",
		"### \"Hello, World!\", 16 connections\n",
		"### \"Hello, World!\", a connection per request, 64 connections\n",
		"### reverse proxy to a hello backend, 128 connections\n",
		"### HTTPS keep-alive, 128 connections\n",
		"### HTTPS, a handshake per request, 16 connections\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if n := strings.Count(md.String(), "| ours, epoll, 1 loop | 250 | 2.50× |"); n != 5 {
		t.Errorf("%d rows of ours with the ratio 2.50×, want 5:\n%s", n, md.String())
	}
	if strings.Contains(md.String(), "Static files:") {
		t.Errorf("the files' paragraph without their tables:\n%s", md.String())
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Mode":"proxy","Conns":128,"Baseline":"nethttp-proxy"`, `"Mode":"tls","Conns":16,"Close":true,"Baseline":"nethttp-tls"`, `"Mode":"hello"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json lacks %s: %s", want, b)
		}
	}
}

// olderBuild makes a stand-in for an --against build older than the
// flags given: a script that fails on any of them as the old flag set
// does ("flag provided but not defined") and runs this test binary
// otherwise. It returns this binary, the script, and a TMPDIR of the
// test's own, set for the run, where the run's directory goes.
func olderBuild(t *testing.T, flags ...string) (self, old, tmpDir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	old = filepath.Join(tmp, "old-eventloop")
	script := "#!/bin/sh\nfor a; do case \"$a\" in " + strings.Join(flags, "|") +
		") echo \"flag provided but not defined: ${a#-}\" >&2; exit 2;; esac; done\nexec \"$0.real\" \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, old+".real"); err != nil {
		t.Fatal(err)
	}
	tmpDir = filepath.Join(tmp, "tmp")
	if err := os.Mkdir(tmpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmpDir)
	return self, old, tmpDir
}

// nothingLeft checks that a run left no process of those it started, no
// goroutine beyond the g0 there were before it, and nothing in its TMPDIR.
func nothingLeft(t *testing.T, pids []int, g0 int, tmpDir string) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there (kill 0: %v)", pid, err)
		}
	}
	if n := goroutinesSettle(g0); n > g0 {
		t.Errorf("%d goroutines left, %d before", n, g0)
	}
	if left, _ := os.ReadDir(tmpDir); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// The pipelined tables' script makes wrk send httpPipelineDepth requests
// in one write, and count each response: a server of this test counts
// the requests each read brings and answers them all.
func TestPipelineScript(t *testing.T) {
	watchdog(t, time.Minute)
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Fatalf("wrk is not installed (ci/install-http-tools.sh): %v", err)
	}
	script := filepath.Join(t.TempDir(), "pipeline.lua")
	if err := os.WriteFile(script, []byte(pipelineScript(httpPipelineDepth)), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var most, answered atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ln.Close()
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				const resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
				buf := make([]byte, 64<<10)
				var pending []byte
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					pending = append(pending, buf[:n]...)
					k := bytes.Count(pending, []byte("\r\n\r\n"))
					if int64(k) > most.Load() {
						most.Store(int64(k))
					}
					pending = pending[bytes.LastIndex(pending, []byte("\r\n\r\n"))+4:]
					if _, err := c.Write(bytes.Repeat([]byte(resp), k)); err != nil {
						return
					}
					answered.Add(int64(k))
				}
			})
		}
	})
	out, err := exec.Command(wrk, wrkArgs(1, 1, time.Second, false, false, script, "http://"+ln.Addr().String()+"/")...).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v: %s", err, out)
	}
	w, err := parseWrkSummary(string(out))
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() != httpPipelineDepth {
		t.Errorf("at most %d requests came in one read, want %d", most.Load(), httpPipelineDepth)
	}
	if w.requests < httpPipelineDepth || w.requests > answered.Load() {
		t.Errorf("wrk counted %d requests; the server answered %d", w.requests, answered.Load())
	}
}
