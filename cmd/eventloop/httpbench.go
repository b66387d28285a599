//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The HTTP benchmark, `bench --http`: wrk against HTTP servers serving
// the 13-byte "Hello, World!", each in a process of its own: net/http
// and fasthttp (bench/httppeers), and ours (the hidden subcommand
// httpserve: package httpserver on epoll, one loop, and one loop per
// core). For each connection count, wrk warms the server up, then runs
// the window; the server's CPU time (/proc/<pid>/stat) and allocations
// (runtime/metrics, printed by the server on SIGUSR1) are read at the
// window's ends and divided by the requests wrk counted.

// httpConfig is what one `bench --http` run measures.
type httpConfig struct {
	conns          []int
	threads        int // wrk's -t
	warmup, window time.Duration
	reps           int
	quick          bool
	self           string   // the eventloop command, our server
	selfEnv        []string // added to our server's environment
	against        string   // another build of the command: its server too
	driver         string   // ours: the driver
	peers          bool     // build and run bench/httppeers
	progress       io.Writer
	started        func(pid int)
}

var (
	httpFull  = httpConfig{conns: []int{16, 128}, threads: 2, warmup: time.Second, window: 3 * time.Second, reps: 5}
	httpQuick = httpConfig{conns: []int{16}, threads: 2, warmup: time.Second, window: time.Second, reps: 1, quick: true}
)

// The server the ratios are to.
const httpBaseline = "nethttp"

func httpBenchCmd(driver string, quick, peers bool, against, format string, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this command's executable, which runs our server: %w", err)
	}
	cfg := httpFull
	if quick {
		cfg = httpQuick
	}
	cfg.self, cfg.driver, cfg.peers, cfg.progress = self, driver, peers, stderr
	cfg.against = against
	if cfg.driver == "" {
		cfg.driver = "epoll"
		if runtime.GOOS != "linux" {
			cfg.driver = ""
		}
	}
	rep, err := httpBench(cfg)
	if err != nil {
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		writeHTTPMarkdown(stdout, rep)
	}
	if err == nil && len(rep.Failures) > 0 {
		err = fmt.Errorf("%d cell(s) failed (listed under the tables)", len(rep.Failures))
	}
	return err
}

func (cfg httpConfig) logf(format string, args ...any) {
	if cfg.progress != nil {
		fmt.Fprintf(cfg.progress, format+"\n", args...)
	}
}

// httpServer is one server to measure.
type httpServer struct {
	key, label string
	env        []string
	argv       func(addr string) []string
}

func httpBench(cfg httpConfig) (*HTTPReport, error) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("bench --http runs wrk, which is not installed (apt-get install -y wrk; ci/install-http-tools.sh)")
	}
	rep := &HTTPReport{
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(),
		Quick: cfg.quick, Reps: cfg.reps, WarmupMS: ms(cfg.warmup), WindowMS: ms(cfg.window),
		Threads: cfg.threads, Baseline: httpBaseline, Load: loadAverage(),
	}
	if out, err := exec.Command(wrk, "--version").CombinedOutput(); err == nil || len(out) > 0 {
		rep.Wrk, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		rep.Wrk = strings.TrimSpace(strings.SplitN(rep.Wrk, "[", 2)[0])
	}
	var servers []httpServer
	if cfg.peers {
		dir, err := os.MkdirTemp("", "eventloop-httppeers-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		peers, note := httpPeerServers(dir, cfg.progress)
		servers = append(servers, peers...)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
	}
	servers = append(servers, ourHTTPServers(cfg)...)
	for _, s := range servers {
		argv := s.argv("ADDR")
		argv[0] = filepath.Base(argv[0])
		rep.Servers = append(rep.Servers, NetServer{Key: s.key, Label: s.label, Command: argv})
	}
	samples := make([][][]HTTPSample, len(servers))
	for i := range samples {
		samples[i] = make([][]HTTPSample, len(cfg.conns))
	}
	for r := range cfg.reps {
		for _, i := range rotation(len(servers), r) {
			s := servers[i]
			for c, smp := range measureHTTPServer(cfg, wrk, s, r) {
				samples[i][c] = append(samples[i][c], smp)
				if smp.Error != "" {
					rep.Failures = append(rep.Failures, NetFailure{Server: s.label, Mode: "http", Conns: cfg.conns[c], Rep: r, Error: smp.Error})
				}
			}
		}
	}
	for k, c := range cfg.conns {
		t := HTTPTable{Conns: c}
		for i, s := range servers {
			t.Rows = append(t.Rows, HTTPRow{Server: s.key, Label: s.label, Samples: samples[i][k]})
		}
		summarizeHTTP(&t, httpBaseline)
		rep.Tables = append(rep.Tables, t)
	}
	rep.LoadAfter = loadAverage()
	return rep, nil
}

// loadAverage is the 1-, 5- and 15-minute load of the machine (from
// /proc/loadavg; "" where there is none): the other work the figures
// shared the CPUs with.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// measureHTTPServer starts s, runs its cells and stops it.
func measureHTTPServer(cfg httpConfig, wrk string, s httpServer, rep int) []HTTPSample {
	out := make([]HTTPSample, 0, len(cfg.conns))
	srv, err := startHTTPServer(cfg, s)
	if err != nil {
		for range cfg.conns {
			out = append(out, HTTPSample{Rep: rep, Error: "start: " + err.Error()})
		}
		cfg.logf("[rep %d/%d] %s: %v", rep+1, cfg.reps, s.label, err)
		return out
	}
	defer func() {
		if err := srv.stop(); err != nil {
			cfg.logf("[rep %d/%d] %s: stop: %v", rep+1, cfg.reps, s.label, err)
		}
	}()
	for _, c := range cfg.conns {
		smp := runHTTPCell(cfg, wrk, srv, c)
		smp.Rep = rep
		if smp.Error == "" && srv.exited() {
			smp.Error = "the server exited during the cell: " + oneLine(srv.out.String())
		}
		out = append(out, smp)
		line := fmt.Sprintf("%.0f requests/s, p50 %.3f ms, p99 %.3f ms", smp.Rate, smp.P50ms, smp.P99ms)
		if smp.Error != "" {
			line = "FAILED: " + oneLine(smp.Error)
		} else {
			if smp.CPUus != nil {
				line += fmt.Sprintf(", server CPU %.2f µs/request", *smp.CPUus)
			}
			if smp.Allocs != nil {
				line += fmt.Sprintf(", %.2f allocs/request", *smp.Allocs)
			}
		}
		cfg.logf("[rep %d/%d] %s, C=%d: %s", rep+1, cfg.reps, s.label, c, line)
	}
	return out
}

// runHTTPCell warms srv up with wrk, then measures a window.
func runHTTPCell(cfg httpConfig, wrk string, srv *httpProc, conns int) HTTPSample {
	var smp HTTPSample
	url := "http://" + srv.addr + "/"
	threads := strconv.Itoa(min(cfg.threads, conns))
	run := func(d time.Duration, latency bool) (wrkSummary, error) {
		args := []string{"-t" + threads, "-c" + strconv.Itoa(conns), "-d" + wrkDuration(d), "--timeout", "5s"}
		if latency {
			args = append(args, "--latency")
		}
		ctx, cancel := context.WithTimeout(context.Background(), d+20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, wrk, append(args, url)...)
		cmd.SysProcAttr = childProcAttr()
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		if err := cmd.Start(); err != nil {
			return wrkSummary{}, err
		}
		if cfg.started != nil {
			cfg.started(cmd.Process.Pid)
		}
		if err := cmd.Wait(); err != nil {
			return wrkSummary{}, fmt.Errorf("wrk: %v: %s", err, oneLine(stdout.String()))
		}
		return parseWrkSummary(stdout.String())
	}
	if _, err := run(cfg.warmup, false); err != nil {
		smp.Error = "warm-up: " + err.Error()
		return smp
	}
	ticks0, cerr0 := procCPUTicks(srv.cmd.Process.Pid)
	a0, aerr0 := srv.allocs()
	w, err := run(cfg.window, true)
	ticks1, cerr1 := procCPUTicks(srv.cmd.Process.Pid)
	a1, aerr1 := srv.allocs()
	if err != nil {
		smp.Error = err.Error()
		return smp
	}
	smp.Requests, smp.Seconds, smp.Rate, smp.P50ms, smp.P99ms = w.requests, w.seconds, w.rate, w.p50ms, w.p99ms
	if w.socketErrors != 0 || w.non2xx != 0 {
		smp.Error = fmt.Sprintf("wrk saw %d socket errors and %d responses not 2xx or 3xx", w.socketErrors, w.non2xx)
		return smp
	}
	if w.requests > 0 {
		if cerr0 == nil && cerr1 == nil {
			us := float64(ticks1-ticks0) * (1e6 / clockTicksPerSecond) / float64(w.requests)
			smp.CPUus = &us
		}
		if aerr0 == nil && aerr1 == nil {
			objs := float64(a1.objects-a0.objects) / float64(w.requests)
			b := float64(a1.bytes-a0.bytes) / float64(w.requests)
			smp.Allocs, smp.AllocBytes = &objs, &b
		}
	}
	return smp
}

// wrkDuration is d in wrk's syntax, whole seconds (it takes no finer
// unit), rounded up.
func wrkDuration(d time.Duration) string {
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + "s"
}

// wrkSummary is what wrk prints at its end.
type wrkSummary struct {
	requests             int64
	seconds, rate        float64
	p50ms, p99ms         float64
	socketErrors, non2xx int64
}

var (
	wrkDone     = regexp.MustCompile(`(\d+) requests in ([\d.]+)(us|ms|s|m),`)
	wrkRate     = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	wrkSockErrs = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx3x = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkPct      = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$`)
)

// parseWrkSummary reads wrk's summary (its --latency distribution when
// there is one); the error lines appear only when not zero.
func parseWrkSummary(out string) (wrkSummary, error) {
	var w wrkSummary
	m := wrkDone.FindStringSubmatch(out)
	if m == nil {
		return w, fmt.Errorf("no request count in wrk's output: %s", oneLine(out))
	}
	w.requests, _ = strconv.ParseInt(m[1], 10, 64)
	w.seconds = wrkSeconds(m[2], m[3])
	if m := wrkRate.FindStringSubmatch(out); m != nil {
		w.rate, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := wrkSockErrs.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			w.socketErrors += n
		}
	}
	if m := wrkNon2xx3x.FindStringSubmatch(out); m != nil {
		w.non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	for _, m := range wrkPct.FindAllStringSubmatch(out, -1) {
		v := wrkSeconds(m[2], m[3]) * 1000
		if m[1] == "50" {
			w.p50ms = v
		} else {
			w.p99ms = v
		}
	}
	return w, nil
}

func wrkSeconds(num, unit string) float64 {
	v, _ := strconv.ParseFloat(num, 64)
	switch unit {
	case "us":
		return v / 1e6
	case "ms":
		return v / 1e3
	case "m":
		return v * 60
	}
	return v
}

// httpPeerServers builds bench/httppeers into dir and returns its
// servers, or a note saying why there are none.
func httpPeerServers(dir string, progressW io.Writer) ([]httpServer, string) {
	root, _ := findClone()
	if root == "" {
		return nil, "peers not run: the peers module (bench/) is not under the working directory; run this command inside a clone"
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, "peers not run: no go command on PATH"
	}
	bin := filepath.Join(dir, "httppeers")
	args := []string{"-C", filepath.Join(root, "bench"), "build", "-o", bin, "./httppeers"}
	if progressW != nil {
		fmt.Fprintf(progressW, "httppeers: go %s\n", strings.Join(args, " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goCmd, args...).CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("peers not run: building bench/httppeers failed (%v): %s", err, oneLine(string(out)))
	}
	peer := func(key, label string) httpServer {
		return httpServer{key: key, label: label, argv: func(addr string) []string {
			return []string{bin, "-server", key, "-addr", addr, "-max-life", "1h"}
		}}
	}
	return []httpServer{
		peer(httpBaseline, "net/http"),
		peer("fasthttp", "fasthttp"),
	}, ""
}

// ourHTTPServers is package httpserver with one loop, and with one loop
// per core (SO_REUSEPORT).
func ourHTTPServers(cfg httpConfig) []httpServer {
	build := func(self, key, label string, loops int) httpServer {
		return httpServer{key: key, label: label, env: cfg.selfEnv, argv: func(addr string) []string {
			argv := []string{self, "httpserve", "--loops", strconv.Itoa(loops)}
			if cfg.driver != "" {
				argv = append(argv, "--driver", cfg.driver)
			}
			return append(argv, addr)
		}}
	}
	d := cfg.driver
	if d == "" {
		d = "default driver"
	}
	n := runtime.NumCPU()
	servers := []httpServer{
		build(cfg.self, "ours", "ours, "+d+", 1 loop", 1),
		build(cfg.self, "ours-loops", fmt.Sprintf("ours, %s, %d loops", d, n), n),
	}
	if cfg.against != "" {
		servers = append(servers,
			build(cfg.against, "against", "against, "+d+", 1 loop", 1),
			build(cfg.against, "against-loops", fmt.Sprintf("against, %s, %d loops", d, n), n))
	}
	return servers
}

// httpProc is a server process; its stdout lines "allocs N B" answer
// SIGUSR1, the rest go to its tail.
type httpProc struct {
	*runningServer
	allocc chan allocCount
}

type allocCount struct{ objects, bytes uint64 }

// allocs asks the server for its allocations so far.
func (p *httpProc) allocs() (allocCount, error) {
	select {
	case <-p.allocc: // a stale answer
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return allocCount{}, err
	}
	select {
	case a := <-p.allocc:
		return a, nil
	case <-p.done:
		return allocCount{}, errors.New("the server exited")
	case <-time.After(2 * time.Second):
		return allocCount{}, errors.New("no answer to SIGUSR1")
	}
}

// startHTTPServer starts s on a free loopback port and waits until it
// answers GET / with 200 (see startProc).
func startHTTPServer(cfg httpConfig, s httpServer) (*httpProc, error) {
	p := &httpProc{allocc: make(chan allocCount, 1)}
	srv, err := startProc(procStart{
		argv: s.argv, env: s.env, started: cfg.started,
		probe: probeHTTP, probeWhat: "no answer", ready: serverReadyTimeout,
		line: p.takeAllocs,
	})
	p.runningServer = srv
	if srv == nil {
		return nil, err
	}
	return p, err
}

// takeAllocs takes a line "allocs N B" of the server's output.
func (p *httpProc) takeAllocs(line string) bool {
	var a allocCount
	if _, err := fmt.Sscanf(line, "allocs %d %d", &a.objects, &a.bytes); err != nil {
		return false
	}
	select {
	case p.allocc <- a:
	default:
	}
	return true
}

// probeHTTP checks that GET / on addr answers 200.
func probeHTTP(addr string) error {
	cl := &http.Client{Timeout: time.Second}
	defer cl.CloseIdleConnections()
	resp, err := cl.Get("http://" + addr + "/")
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET /: %s", resp.Status)
	}
	return nil
}
