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
	"slices"
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
//
// The static-file tables (--files) measure the same way servers that
// serve http.FileServer over a temporary directory of files this run
// writes, one per size: net/http (httppeers -dir) and ours with one loop
// (httpserve --dir), each a process of its own again, in the same
// rotation; wrk GETs one file over keep-alive connections per table. An
// --against build that does not start with --dir (one older than the
// files mode) has no file rows, and a note says so.

// httpConfig is what one `bench --http` run measures.
type httpConfig struct {
	conns          []int   // the "Hello, World!" tables; none without
	files          []int64 // the static files' sizes, a table each
	fileConns      []int   // the connection counts of the file tables
	threads        int     // wrk's -t
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
	httpFull = httpConfig{conns: []int{16, 128}, files: []int64{1 << 10, 100 << 10, 5 << 20}, fileConns: []int{16},
		threads: 2, warmup: time.Second, window: 3 * time.Second, reps: 5}
	httpQuick = httpConfig{conns: []int{16}, files: []int64{1 << 10}, fileConns: []int{16},
		threads: 2, warmup: time.Second, window: time.Second, reps: 1, quick: true}
)

// The servers the ratios are to: of the "Hello, World!" tables and of
// the file tables.
const (
	httpBaseline      = "nethttp"
	httpFilesBaseline = "nethttp-files"
)

func httpBenchCmd(opts httpOptions, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this command's executable, which runs our server: %w", err)
	}
	cfg := httpFull
	if opts.quick {
		cfg = httpQuick
	}
	if opts.files != "" {
		if cfg.files, err = parseFileSizes(opts.files); err != nil {
			return err
		}
	}
	if !opts.hello {
		cfg.conns = nil
	}
	if len(cfg.conns) == 0 && len(cfg.files) == 0 {
		return errors.New("--hello=false with --files none: no table left to measure")
	}
	cfg.self, cfg.driver, cfg.peers, cfg.progress = self, opts.driver, opts.peers, stderr
	cfg.against = opts.against
	format := opts.format
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
	files      bool // serves the directory of files (httpFilesDir)
	against    bool // the --against build
	env        []string
	argv       func(addr string) []string
	cells      []httpCell // what wrk measures on it, in order
}

// httpCell is one wrk cell on a server: a table's row.
type httpCell struct {
	path       string // what wrk GETs
	conns      int
	table, row int // in HTTPReport.Tables
}

// parseFileSizes reads --files: sizes such as 1k,100k,5m (k for KiB, m
// for MiB, KiB and MiB spelt out too, or bytes), or none.
func parseFileSizes(v string) ([]int64, error) {
	if v == "none" {
		return nil, nil
	}
	var sizes []int64
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		num, mult := f, int64(1)
		for _, u := range []struct {
			suffix string
			mult   int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"k", 1 << 10}, {"K", 1 << 10}, {"m", 1 << 20}, {"M", 1 << 20}, {"B", 1}} {
			if n, ok := strings.CutSuffix(f, u.suffix); ok {
				num, mult = n, u.mult
				break
			}
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n <= 0 || n > (1<<30)/mult {
			return nil, fmt.Errorf("--files %q: %q is not a size from 1 byte to 1 GiB (such as 1k, 100k, 5m), nor is the list none", v, f)
		}
		if !slices.Contains(sizes, n*mult) {
			sizes = append(sizes, n*mult)
		}
	}
	return sizes, nil
}

// fileName is the name of the file of n bytes in the directory served:
// 1KiB.html and so on. The extension is one whose type the mime package
// knows without the system's tables, so that http.FileServer takes the
// type from the name on every machine rather than sniffing the content.
func fileName(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB.html", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB.html", n>>10)
	}
	return fmt.Sprintf("%dB.html", n)
}

// writeFiles writes a file of each size into dir: lines of printable
// ASCII, each ending in a newline.
func writeFiles(dir string, sizes []int64) error {
	for _, n := range sizes {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
			if i%64 == 63 {
				b[i] = '\n'
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fileName(n)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func httpBench(cfg httpConfig) (*HTTPReport, error) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("bench --http runs wrk, which is not installed (apt-get install -y wrk; ci/install-http-tools.sh)")
	}
	rep := &HTTPReport{
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(),
		Quick: cfg.quick, Reps: cfg.reps, WarmupMS: ms(cfg.warmup), WindowMS: ms(cfg.window),
		Threads: cfg.threads, Load: loadAverage(),
	}
	if len(cfg.conns) > 0 {
		rep.Baseline = httpBaseline
	}
	if len(cfg.files) > 0 {
		rep.FilesBaseline = httpFilesBaseline
	}
	if out, err := exec.Command(wrk, "--version").CombinedOutput(); err == nil || len(out) > 0 {
		rep.Wrk, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		rep.Wrk = strings.TrimSpace(strings.SplitN(rep.Wrk, "[", 2)[0])
	}
	var filesDir string
	if len(cfg.files) > 0 {
		if filesDir, err = os.MkdirTemp("", "eventloop-httpfiles-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(filesDir)
		if err := writeFiles(filesDir, cfg.files); err != nil {
			return nil, err
		}
	}
	var hello, files []httpServer
	if cfg.peers {
		dir, err := os.MkdirTemp("", "eventloop-httppeers-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bin, note := buildHTTPPeers(dir, cfg.progress)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		} else {
			if len(cfg.conns) > 0 {
				hello = append(hello, httpPeer(bin, httpBaseline, "net/http", ""), httpPeer(bin, "fasthttp", "fasthttp", ""))
			}
			if filesDir != "" {
				files = append(files, httpPeer(bin, httpFilesBaseline, "net/http", filesDir))
			}
		}
	}
	if len(cfg.conns) > 0 {
		hello = append(hello, ourHTTPServers(cfg, "")...)
	}
	if filesDir != "" {
		files = append(files, ourHTTPServers(cfg, filesDir)...)
	}
	// The tables, a row per server of their kind; each server's cells say
	// which rows it fills.
	addTables := func(group []httpServer, conns []int, size int64) {
		for _, c := range conns {
			t := HTTPTable{Conns: c}
			path := "/"
			if size > 0 {
				t.File, t.FileBytes = fileName(size), size
				path += t.File
			}
			for i := range group {
				group[i].cells = append(group[i].cells, httpCell{path: path, conns: c, table: len(rep.Tables), row: len(t.Rows)})
				t.Rows = append(t.Rows, HTTPRow{Server: group[i].key, Label: group[i].label})
			}
			rep.Tables = append(rep.Tables, t)
		}
	}
	addTables(hello, cfg.conns, 0)
	for _, n := range cfg.files {
		addTables(files, cfg.fileConns, n)
	}
	servers := append(hello, files...)
	skipped := make([]bool, len(servers))
	for r := range cfg.reps {
		for _, i := range rotation(len(servers), r) {
			s := servers[i]
			if skipped[i] {
				continue
			}
			smps, startErr := measureHTTPServer(cfg, wrk, s, r)
			if startErr != nil && s.files && s.against && r == 0 {
				// An older build, without --dir: its file rows are left out.
				// (Each server's first start is in the first repetition; a
				// later one that fails is a failure as any other.)
				skipped[i] = true
				why := "it did not start with --dir (a build older than the files mode?): " + oneLine(startErr.Error())
				if strings.Contains(startErr.Error(), "flag provided but not defined: -dir") {
					why = "its httpserve does not know --dir (a build older than the files mode)"
				}
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: no static-file rows: %s.", s.label, why))
				continue
			}
			for k, smp := range smps {
				cell := s.cells[k]
				row := &rep.Tables[cell.table].Rows[cell.row]
				row.Samples = append(row.Samples, smp)
				if smp.Error != "" {
					mode := "http"
					if s.files {
						mode = "GET " + cell.path
					}
					rep.Failures = append(rep.Failures, NetFailure{Server: s.label, Mode: mode, Conns: cell.conns, Rep: r, Error: smp.Error})
				}
			}
		}
	}
	for i, s := range servers {
		if skipped[i] {
			for _, cell := range s.cells {
				rep.Tables[cell.table].Rows[cell.row].Server = "" // dropped below
			}
			continue
		}
		argv := s.argv("ADDR")
		argv[0] = filepath.Base(argv[0])
		for j, a := range argv {
			if a == filesDir {
				argv[j] = "DIR"
			}
		}
		label := s.label
		if s.files {
			label += ", static files"
		}
		rep.Servers = append(rep.Servers, NetServer{Key: s.key, Label: label, Command: argv})
	}
	for k := range rep.Tables {
		t := &rep.Tables[k]
		t.Rows = slices.DeleteFunc(t.Rows, func(r HTTPRow) bool { return r.Server == "" })
		base := httpBaseline
		if t.File != "" {
			base = httpFilesBaseline
		}
		summarizeHTTP(t, base)
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

// measureHTTPServer starts s, runs its cells and stops it. If s did not
// start, each cell's sample says so, and the error is returned too.
func measureHTTPServer(cfg httpConfig, wrk string, s httpServer, rep int) ([]HTTPSample, error) {
	out := make([]HTTPSample, 0, len(s.cells))
	name := s.label
	if s.files {
		name += ", static files"
	}
	srv, err := startHTTPServer(cfg, s)
	if err != nil {
		for range s.cells {
			out = append(out, HTTPSample{Rep: rep, Error: "start: " + err.Error()})
		}
		cfg.logf("[rep %d/%d] %s: %v", rep+1, cfg.reps, name, err)
		return out, err
	}
	defer func() {
		if err := srv.stop(); err != nil {
			cfg.logf("[rep %d/%d] %s: stop: %v", rep+1, cfg.reps, s.label, err)
		}
	}()
	for _, cell := range s.cells {
		smp := runHTTPCell(cfg, wrk, srv, cell.path, cell.conns)
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
		where := ""
		if s.files {
			where = ", GET " + cell.path
		}
		cfg.logf("[rep %d/%d] %s%s, C=%d: %s", rep+1, cfg.reps, s.label, where, cell.conns, line)
	}
	return out, nil
}

// runHTTPCell warms srv up with wrk GETting path, then measures a window.
func runHTTPCell(cfg httpConfig, wrk string, srv *httpProc, path string, conns int) HTTPSample {
	var smp HTTPSample
	url := "http://" + srv.addr + path
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

// buildHTTPPeers builds bench/httppeers into dir and returns its path,
// or a note saying why there is none.
func buildHTTPPeers(dir string, progressW io.Writer) (string, string) {
	root, _ := findClone()
	if root == "" {
		return "", "peers not run: the peers module (bench/) is not under the working directory; run this command inside a clone"
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", "peers not run: no go command on PATH"
	}
	bin := filepath.Join(dir, "httppeers")
	args := []string{"-C", filepath.Join(root, "bench"), "build", "-o", bin, "./httppeers"}
	if progressW != nil {
		fmt.Fprintf(progressW, "httppeers: go %s\n", strings.Join(args, " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goCmd, args...).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("peers not run: building bench/httppeers failed (%v): %s", err, oneLine(string(out)))
	}
	return bin, ""
}

// httpPeer is the peer server name of httppeers (at bin); with dir, it
// serves the files of dir (the net/http peer alone), its key then with
// the suffix -files.
func httpPeer(bin, key, label, dir string) httpServer {
	name, _ := strings.CutSuffix(key, "-files")
	return httpServer{key: key, label: label, files: dir != "", argv: func(addr string) []string {
		argv := []string{bin, "-server", name, "-addr", addr, "-max-life", "1h"}
		if dir != "" {
			argv = append(argv, "-dir", dir)
		}
		return argv
	}}
}

// ourHTTPServers is package httpserver with one loop, and with one loop
// per core (SO_REUSEPORT); with dir, serving the files of dir, with one
// loop alone, their keys then with the suffix -files.
func ourHTTPServers(cfg httpConfig, dir string) []httpServer {
	build := func(self, key, label string, loops int) httpServer {
		if dir != "" {
			key += "-files"
		}
		return httpServer{key: key, label: label, env: cfg.selfEnv, files: dir != "", against: strings.HasPrefix(key, "against"),
			argv: func(addr string) []string {
				argv := []string{self, "httpserve", "--loops", strconv.Itoa(loops)}
				if cfg.driver != "" {
					argv = append(argv, "--driver", cfg.driver)
				}
				if dir != "" {
					argv = append(argv, "--dir", dir)
				}
				return append(argv, addr)
			}}
	}
	d := cfg.driver
	if d == "" {
		d = "default driver"
	}
	n := runtime.NumCPU()
	servers := []httpServer{build(cfg.self, "ours", "ours, "+d+", 1 loop", 1)}
	if dir == "" {
		servers = append(servers, build(cfg.self, "ours-loops", fmt.Sprintf("ours, %s, %d loops", d, n), n))
	}
	if cfg.against != "" {
		servers = append(servers, build(cfg.against, "against", "against, "+d+", 1 loop", 1))
		if dir == "" {
			servers = append(servers, build(cfg.against, "against-loops", fmt.Sprintf("against, %s, %d loops", d, n), n))
		}
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
