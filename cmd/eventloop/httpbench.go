//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
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

	"github.com/revoltgo/eventloop/internal/testcert"
)

// The HTTP benchmark, `bench --http`: wrk against HTTP servers, each in
// a process of its own, in rotating order. For each connection count,
// wrk warms the server up, then runs the window; the server's CPU time
// (/proc/<pid>/stat) and allocations (runtime/metrics, printed by the
// server on SIGUSR1) are read at the window's ends and divided by the
// requests wrk counted. Four kinds of table, each server of one kind
// serving the cells of all the tables of its kind:
//
//   - "Hello, World!" (--hello=false drops them): the 13-byte body from
//     net/http and fasthttp (bench/httppeers) and ours (the hidden
//     subcommand httpserve: package httpserver on epoll, one loop, and
//     one loop per core).
//     On Linux, a floor too (httppeers -server floor, floorLabel): the
//     least work a server can do here, so that each row shows how much
//     of its cost is the kernel's and wrk's share of the CPUs.
//   - "Hello, World!" pipelined: the same servers (nbio too, but not in
//     --quick), each wrk connection sending 16 requests in one write
//     (TechEmpower's plaintext shape), as many as --hello's tables.
//   - "Hello, World!" with a connection per request: the same servers
//     but nbio (nbioNoClose says why), wrk sending "Connection: close",
//     so that each request is an accept, a read, a write and a close.
//   - Static files (--files SIZES, or none): servers that serve
//     http.FileServer over a temporary directory of files this run
//     writes, one per size: net/http (httppeers -dir) and ours with one
//     loop (httpserve --dir); wrk GETs one file over keep-alive
//     connections per table.
//   - Reverse proxy (--proxy=false drops them): httputil.ReverseProxy to
//     one backend, started before the rotation and stopped at its end,
//     the same for every proxy: ours, one loop, "Hello, World!"
//     (httpserve ADDR). The proxies: net/http (httppeers -proxy, over a
//     clone of http.DefaultTransport) and ours (httpserve --proxy, over
//     package httpclient's Transport, one per loop), with one loop and
//     one per core, MaxIdleConnsPerHost 1024 both. The CPU time and the
//     allocations are the proxy's alone.
//   - HTTPS (--tls=false drops them): "Hello, World!" over TLS with a
//     self-signed ECDSA P-256 certificate for 127.0.0.1 that the run
//     writes into its temporary directory: net/http (ServeTLS), nbio's
//     nbhttp (httppeers -server nbio -cert; in the keep-alive tables
//     alone, and not with --quick: nbioNoClose and httpConfig.nbio say
//     why) and ours (ServeTLS, one loop and one per core), in keep-alive
//     tables and in one where wrk sends "Connection: close": a
//     connection, and so a handshake, per request.
//
// The ratios are to the net/http row of each table. An --against build
// that does not start in a mode (one older than it: its httpserve does
// not know --dir, --proxy or --cert) has no rows in that mode's tables,
// and a note says so.

// httpConfig is what one `bench --http` run measures.
type httpConfig struct {
	conns         []int   // the "Hello, World!" tables; none without
	pipeConns     []int   // the "Hello, World!" tables of pipelined requests
	closeConns    []int   // the "Hello, World!" tables of a connection per request
	files         []int64 // the static files' sizes, a table each
	fileConns     []int   // the connection counts of the file tables
	proxyConns    []int   // the reverse-proxy tables; none without
	tlsConns      []int   // the HTTPS keep-alive tables; none without
	tlsCloseConns []int   // the HTTPS tables of a handshake per request
	// nbio adds nbio's nbhttp to the HTTPS tables. Not in --quick, CI's
	// smoke run: over keep-alive connections too, wrk sees a read error
	// on nbio's now and then (about one request in a million here, in
	// one cell of the full mode's in ten or twenty; none on the other
	// servers', and none for a client of crypto/tls over half a million
	// requests), which fails the cell and makes the run exit non-zero.
	nbio    bool
	threads int    // wrk's -t
	driver  string // ours: the driver
	// pipelineScript is the path of wrk's script for the pipelined
	// tables, written by the run.
	pipelineScript string
	benchRun
}

var (
	httpFull = httpConfig{conns: []int{16, 128}, pipeConns: []int{128}, closeConns: []int{64}, files: []int64{1 << 10, 100 << 10, 5 << 20}, fileConns: []int{16},
		proxyConns: []int{16, 128}, tlsConns: []int{16, 128}, tlsCloseConns: []int{16}, nbio: true,
		threads: 2, benchRun: benchRun{warmup: time.Second, window: 3 * time.Second, reps: 5}}
	httpQuick = httpConfig{conns: []int{16}, pipeConns: []int{16}, closeConns: []int{16}, files: []int64{1 << 10}, fileConns: []int{16},
		proxyConns: []int{16}, tlsConns: []int{16},
		threads: 2, benchRun: benchRun{warmup: time.Second, window: time.Second, reps: 1, quick: true}}
)

// The servers the ratios are to: of the "Hello, World!" tables and of
// the file tables (the keys of the other modes' net/http servers are
// httpBaseline and their mode's suffix, as every server's: modeKey).
const (
	httpBaseline      = "nethttp"
	httpFilesBaseline = "nethttp-files"
)

// modeKey is the key of the server named key in mode: key itself in the
// "Hello, World!" tables, key-MODE in the others'.
func modeKey(key, mode string) string {
	if mode == modeHello {
		return key
	}
	return key + "-" + mode
}

func httpBenchCmd(opts httpOptions, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this command's executable, which runs our server: %w", err)
	}
	cfg, err := httpConfigFor(opts)
	if err != nil {
		return err
	}
	cfg.self, cfg.progress = self, stderr
	rep, err := httpBench(cfg)
	if err != nil {
		return err
	}
	return writeReport(stdout, opts.format, rep, func(w io.Writer) { writeHTTPMarkdown(w, rep) }, len(rep.Failures))
}

// httpConfigFor is the run the flags of bench --http ask for (without
// the executable, cfg.self, and where progress goes).
func httpConfigFor(opts httpOptions) (httpConfig, error) {
	cfg := httpFull
	if opts.quick {
		cfg = httpQuick
	}
	if opts.files != "" {
		var err error
		if cfg.files, err = parseFileSizes(opts.files); err != nil {
			return cfg, err
		}
	}
	if !opts.hello {
		cfg.conns, cfg.pipeConns, cfg.closeConns = nil, nil, nil
	}
	if !opts.proxy {
		cfg.proxyConns = nil
	}
	if !opts.tls {
		cfg.tlsConns, cfg.tlsCloseConns = nil, nil
	}
	if len(cfg.conns) == 0 && len(cfg.files) == 0 && len(cfg.proxyConns) == 0 && len(cfg.tlsConns)+len(cfg.tlsCloseConns) == 0 {
		return cfg, errors.New("--hello=false, --files none, --proxy=false and --tls=false: no table left to measure")
	}
	cfg.driver, cfg.peers, cfg.against = opts.driver, opts.peers, opts.against
	if cfg.driver == "" {
		cfg.driver = "epoll"
		if runtime.GOOS != "linux" {
			cfg.driver = ""
		}
	}
	return cfg, nil
}

// httpServer is one server to measure.
type httpServer struct {
	benchServer
	mode    string // modeHello and so on: the tables it has rows in
	against bool   // the --against build
	// probe tells that the server at addr serves (nil: probeHTTP).
	probe func(addr string) error
	// backend is the reverse proxies' backend, which a proxy's cells
	// need (modeProxy).
	backend *runningServer
	// noClose, if not "", says why the server has no row in the tables
	// of a connection per request (HTTPTable.Close).
	noClose string
	cells   []httpCell // what wrk measures on it, in order
}

// name is s's label with its mode, as the progress lines and the list of
// servers say it.
func (s httpServer) name() string {
	switch s.mode {
	case modeFiles:
		return s.label + ", static files"
	case modeProxy:
		return s.label + ", reverse proxy"
	case modeTLS:
		return s.label + ", HTTPS"
	}
	return s.label
}

// httpCell is one wrk cell on a server: a table's row.
type httpCell struct {
	path       string // what wrk GETs
	conns      int
	pipeline   int  // requests wrk sends at once on a connection; 0 or 1: one
	close      bool // wrk sends "Connection: close": a connection per request
	table, row int  // in HTTPReport.Tables
}

// failureMode is the mode a failed cell's line names: "http" for the
// "Hello, World!" tables (named by their connection count alone).
func (s httpServer) failureMode(cell httpCell) string {
	switch s.mode {
	case modeFiles:
		return "GET " + cell.path
	case modeProxy:
		return "reverse proxy"
	case modeTLS:
		if cell.close {
			return "https, Connection: close"
		}
		return "https"
	}
	return "http"
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
	// The run's directory: the files served, the certificate, the peers'
	// binary.
	dir, err := os.MkdirTemp("", "eventloop-httpbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var filesDir string
	if len(cfg.files) > 0 {
		filesDir = filepath.Join(dir, "files")
		if err := os.Mkdir(filesDir, 0o755); err != nil {
			return nil, err
		}
		if err := writeFiles(filesDir, cfg.files); err != nil {
			return nil, err
		}
	}
	if len(cfg.pipeConns) > 0 {
		cfg.pipelineScript = filepath.Join(dir, "pipeline.lua")
		if err := os.WriteFile(cfg.pipelineScript, []byte(pipelineScript(httpPipelineDepth)), 0o644); err != nil {
			return nil, err
		}
	}
	var cert *benchCert
	if len(cfg.tlsConns)+len(cfg.tlsCloseConns) > 0 {
		if cert, err = writeCert(dir); err != nil {
			return nil, fmt.Errorf("writing the HTTPS tables' certificate: %w", err)
		}
	}
	var peersBin string
	if cfg.peers {
		bin, note := buildPeers(dir, "httppeers", cfg.progress)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		} else {
			peersBin = bin
		}
	}
	// The reverse proxies' backend, for the whole run.
	var backend *httpProc
	var backendSrv httpServer
	if len(cfg.proxyConns) > 0 {
		backendSrv = ourBackend(cfg)
		if backend, err = startHTTPServer(cfg, backendSrv); err != nil {
			cfg.logf("backend of the reverse proxies: %v", err)
			rep.Failures = append(rep.Failures, NetFailure{Server: backendSrv.label, Mode: "reverse proxy", Error: "start: " + err.Error()})
			rep.Notes = append(rep.Notes, "No reverse-proxy tables: their backend did not start.")
			backend = nil
		} else {
			cfg.logf("backend of the reverse proxies: %s on %s", backendSrv.label, backend.addr)
			defer func() {
				if err := backend.stop(); err != nil {
					cfg.logf("backend of the reverse proxies: stop: %v", err)
				}
			}()
		}
	}
	var hello, files, proxies, tlsServers []httpServer
	if peersBin != "" {
		if len(cfg.conns) > 0 {
			hello = append(hello, httpPeer(peersBin, httpBaseline, "net/http", modeHello), httpPeer(peersBin, "fasthttp", "fasthttp", modeHello))
			if cfg.nbio {
				nbio := httpPeer(peersBin, "nbio", "nbio (nbhttp)", modeHello)
				nbio.noClose = nbioNoClose
				hello = append(hello, nbio)
			}
			if runtime.GOOS == "linux" {
				hello = append(hello, httpPeer(peersBin, "floor", floorLabel, modeHello))
			}
		}
		if filesDir != "" {
			files = append(files, httpPeer(peersBin, httpBaseline, "net/http", modeFiles, "-dir", filesDir))
		}
		if backend != nil {
			proxies = append(proxies, httpPeer(peersBin, httpBaseline, "net/http", modeProxy, "-proxy", backend.addr))
		}
		if cert != nil {
			tlsServers = append(tlsServers, httpPeer(peersBin, httpBaseline, "net/http", modeTLS, "-cert", cert.certFile, "-key", cert.keyFile))
			if cfg.nbio {
				nbio := httpPeer(peersBin, "nbio", "nbio (nbhttp)", modeTLS, "-cert", cert.certFile, "-key", cert.keyFile)
				nbio.noClose = nbioNoClose
				tlsServers = append(tlsServers, nbio)
			}
		}
	}
	if len(cfg.conns) > 0 {
		hello = append(hello, ourHTTPServers(cfg, modeHello)...)
	}
	if filesDir != "" {
		files = append(files, ourHTTPServers(cfg, modeFiles, "--dir", filesDir)...)
	}
	if backend != nil {
		proxies = append(proxies, ourHTTPServers(cfg, modeProxy, "--proxy", backend.addr)...)
		for i := range proxies {
			proxies[i].backend = backend.runningServer
		}
	}
	if cert != nil {
		tlsServers = append(tlsServers, ourHTTPServers(cfg, modeTLS, "--cert", cert.certFile, "--key", cert.keyFile)...)
		for i := range tlsServers {
			tlsServers[i].probe = cert.probe
		}
	}
	var servers []httpServer
	rep.Tables, servers = httpTables(cfg, httpGroups{hello: hello, files: files, proxy: proxies, tls: tlsServers})
	if len(cfg.closeConns) > 0 {
		rep.Notes = append(rep.Notes, noCloseNotes(hello, "the tables of a connection per request")...)
	}
	if len(cfg.tlsCloseConns) > 0 {
		rep.Notes = append(rep.Notes, noCloseNotes(tlsServers, "the HTTPS tables of a handshake per request")...)
	}
	skipped := make([]bool, len(servers))
	for r, i := range rotations(cfg.reps, len(servers)) {
		s := servers[i]
		if skipped[i] {
			continue
		}
		smps, startErr := measureHTTPServer(cfg, wrk, s, r)
		if startErr != nil && s.mode != modeHello && s.against && r == 0 {
			// An older build, without the mode's flag: its rows of the
			// mode are left out. (Each server's first start is in the
			// first repetition; a later one that fails is a failure as
			// any other.)
			skipped[i] = true
			rep.Notes = append(rep.Notes, olderBuildNote(s, startErr))
			continue
		}
		for k, smp := range smps {
			cell := s.cells[k]
			row := &rep.Tables[cell.table].Rows[cell.row]
			row.Samples = append(row.Samples, smp)
			if smp.Error != "" {
				rep.Failures = append(rep.Failures, NetFailure{Server: s.label, Mode: s.failureMode(cell), Conns: cell.conns, Rep: r, Error: smp.Error})
			}
		}
	}
	// The commands, as the report shows them: the run's paths and ports
	// by name.
	names := map[string]string{filesDir: "DIR"}
	if cert != nil {
		names[cert.certFile], names[cert.keyFile] = "CERT", "KEY"
	}
	if backend != nil {
		names[backend.addr] = "BACKEND"
	}
	shown := func(argv []string) []string { return shownCommand(argv, names) }
	for i, s := range servers {
		if skipped[i] {
			for _, cell := range s.cells {
				rep.Tables[cell.table].Rows[cell.row].Server = "" // dropped below
			}
			continue
		}
		rep.Servers = append(rep.Servers, NetServer{Key: s.key, Label: s.name(), Command: shown(s.argv("ADDR"))})
	}
	if backend != nil {
		rep.Servers = append(rep.Servers, NetServer{Key: backendSrv.key, Label: backendSrv.label, Command: shown(backendSrv.argv("BACKEND"))})
	}
	for k := range rep.Tables {
		t := &rep.Tables[k]
		t.Rows = slices.DeleteFunc(t.Rows, func(r HTTPRow) bool { return r.Server == "" })
		summarizeHTTP(t, t.Baseline)
	}
	rep.LoadAfter = loadAverage()
	return rep, nil
}

// noCloseNotes says, for each of servers that has no row in tables (a
// connection per request), why.
func noCloseNotes(servers []httpServer, tables string) []string {
	var notes []string
	for _, s := range servers {
		if s.noClose != "" {
			notes = append(notes, fmt.Sprintf("%s: no row in %s: %s.", s.label, tables, s.noClose))
		}
	}
	return notes
}

// floorLabel is the row of httppeers' floor: not a server but the least
// work one can do, one read and one canned write per readable conn,
// nothing parsed but where each head ends.
const floorLabel = "floor: a read and a canned write, a loop per CPU"

// nbioNoClose is why nbio has no row in the tables of a connection per
// request: its flushResponse closes the connection as soon as it has
// queued the response ("the data may still in the send queue", says its
// comment there), and now and then the client's connection ends without
// the response.
const nbioNoClose = "on a request with \"Connection: close\", nbhttp closes the connection as soon as the response is queued, " +
	"not sent, and now and then wrk's connection ends without it (a read or handshake error to wrk, a few in every ten thousand requests, " +
	"over plain HTTP too; none with net/http or ours), which fails the cell"

// httpGroups are the servers of each mode.
type httpGroups struct{ hello, files, proxy, tls []httpServer }

// httpTables makes the tables of cfg, a row per server of their mode, in
// the order hello, files, proxy, tls (keep-alive, pipelined, then a
// connection per request), and returns them with the servers in that
// order, each with its cells: which rows it fills. A mode without servers has no tables.
func httpTables(cfg httpConfig, g httpGroups) ([]HTTPTable, []httpServer) {
	var tables []HTTPTable
	add := func(group []httpServer, conns []int, tmpl HTTPTable) {
		if len(group) == 0 {
			return
		}
		for _, c := range conns {
			t := tmpl
			t.Conns, t.Baseline = c, modeKey(httpBaseline, t.Mode)
			for i := range group {
				if t.Close && group[i].noClose != "" {
					continue
				}
				group[i].cells = append(group[i].cells, httpCell{path: "/" + t.File, conns: c, close: t.Close, pipeline: t.Pipeline, table: len(tables), row: len(t.Rows)})
				t.Rows = append(t.Rows, HTTPRow{Server: group[i].key, Label: group[i].label})
			}
			tables = append(tables, t)
		}
	}
	add(g.hello, cfg.conns, HTTPTable{Mode: modeHello})
	add(g.hello, cfg.pipeConns, HTTPTable{Mode: modeHello, Pipeline: httpPipelineDepth})
	add(g.hello, cfg.closeConns, HTTPTable{Mode: modeHello, Close: true})
	for _, n := range cfg.files {
		add(g.files, cfg.fileConns, HTTPTable{Mode: modeFiles, File: fileName(n), FileBytes: n})
	}
	add(g.proxy, cfg.proxyConns, HTTPTable{Mode: modeProxy})
	add(g.tls, cfg.tlsConns, HTTPTable{Mode: modeTLS})
	add(g.tls, cfg.tlsCloseConns, HTTPTable{Mode: modeTLS, Close: true})
	return tables, slices.Concat(g.hello, g.files, g.proxy, g.tls)
}

// The flag of each mode but "Hello, World!"'s, which a build older than
// the mode does not know, and what its tables are called.
var modeFlags = map[string]struct{ flag, rows, mode string }{
	modeFiles: {"--dir", "static-file rows", "the files mode"},
	modeProxy: {"--proxy", "reverse-proxy rows", "the reverse-proxy mode"},
	modeTLS:   {"--cert", "HTTPS rows", "the HTTPS mode"},
}

// olderBuildNote says why the --against server s, which did not start
// with the flags of its mode, has no rows in that mode's tables.
func olderBuildNote(s httpServer, startErr error) string {
	m := modeFlags[s.mode]
	why := fmt.Sprintf("it did not start with %s (a build older than %s?): %s", m.flag, m.mode, oneLine(startErr.Error()))
	if strings.Contains(startErr.Error(), "flag provided but not defined: "+m.flag[1:]) {
		why = fmt.Sprintf("its httpserve does not know %s (a build older than %s)", m.flag, m.mode)
	}
	return fmt.Sprintf("%s: no %s: %s.", s.label, m.rows, why)
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
	err := measureOn(cfg.benchRun, rep, s.name(), func() (*httpProc, error) { return startHTTPServer(cfg, s) }, func(srv *httpProc) {
		for _, cell := range s.cells {
			smp := runHTTPCell(cfg, wrk, srv, s.mode == modeTLS, cell)
			smp.Rep = rep
			if smp.Error == "" && srv.exited() {
				smp.Error = "the server exited during the cell: " + oneLine(srv.out.String())
			}
			if smp.Error == "" && s.backend != nil && s.backend.exited() {
				smp.Error = "the backend exited during the cell: " + oneLine(s.backend.out.String())
			}
			out = append(out, smp)
			line := fmt.Sprintf("%.0f requests/s", smp.Rate)
			if smp.P99ms > 0 {
				line += fmt.Sprintf(", p50 %.3f ms, p99 %.3f ms", smp.P50ms, smp.P99ms)
			}
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
			switch {
			case s.mode == modeFiles:
				where = ", GET " + cell.path
			case cell.close:
				where = ", Connection: close"
			}
			cfg.repf(rep, "%s%s, C=%d: %s", s.name(), where, cell.conns, line)
		}
	})
	if err != nil {
		for range s.cells {
			out = append(out, HTTPSample{Rep: rep, Error: "start: " + err.Error()})
		}
	}
	return out, err
}

// wrkArgs is wrk's command line for a run of d on url, with Connection:
// close on each request if close, and script (wrk's -s) if not "".
func wrkArgs(threads, conns int, d time.Duration, latency, close bool, script, url string) []string {
	args := []string{"-t" + strconv.Itoa(min(threads, conns)), "-c" + strconv.Itoa(conns), "-d" + wrkDuration(d), "--timeout", "5s"}
	if latency {
		args = append(args, "--latency")
	}
	if close {
		args = append(args, "-H", "Connection: close")
	}
	if script != "" {
		args = append(args, "-s", script)
	}
	return append(args, url)
}

// httpPipelineDepth is how many requests a connection of the pipelined
// tables sends at once: TechEmpower's plaintext test sends 16.
const httpPipelineDepth = 16

// pipelineScript is wrk's script that sends depth requests in each write
// (wrk's own pipeline.lua, with the request it was given): wrk counts
// each response.
func pipelineScript(depth int) string {
	return fmt.Sprintf(`init = function(args)
  local r = {}
  for i = 1, %d do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
`, depth)
}

// runHTTPCell warms srv up with wrk GETting the cell's path (over https
// if tls), then measures a window. (It reads the server's CPU around
// wrk's window, where bench --net's client, runClient, reads it itself at
// its window's ends: wrk cannot.)
func runHTTPCell(cfg httpConfig, wrk string, srv *httpProc, tls bool, cell httpCell) HTTPSample {
	var smp HTTPSample
	url := "http://" + srv.addr + cell.path
	if tls {
		url = "https://" + srv.addr + cell.path
	}
	run := func(d time.Duration, latency bool) (wrkSummary, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d+20*time.Second)
		defer cancel()
		script := ""
		if cell.pipeline > 1 {
			script = cfg.pipelineScript
		}
		cmd := exec.CommandContext(ctx, wrk, wrkArgs(cfg.threads, cell.conns, d, latency, cell.close, script, url)...)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		if err := startChild(cmd, cfg.started); err != nil {
			return wrkSummary{}, err
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
	// wrk's latency distribution is not kept per response when it
	// pipelines (it prints 0 for the 75th percentile and above): the
	// pipelined rows have none.
	latency := cell.pipeline <= 1
	w, err := run(cfg.window, latency)
	ticks1, cerr1 := procCPUTicks(srv.cmd.Process.Pid)
	a1, aerr1 := srv.allocs()
	if err != nil {
		smp.Error = err.Error()
		return smp
	}
	smp.Requests, smp.Seconds, smp.Rate = w.requests, w.seconds, w.rate
	if latency {
		smp.P50ms, smp.P99ms = w.p50ms, w.p99ms
	}
	if w.socketErrors != 0 || w.non2xx != 0 {
		smp.Error = fmt.Sprintf("wrk saw %d socket errors and %d responses not 2xx or 3xx", w.socketErrors, w.non2xx)
		if w.socketErrors != 0 {
			smp.Error += " (socket errors: " + w.socketDetail + ")"
		}
		return smp
	}
	if w.requests > 0 {
		if cerr0 == nil && cerr1 == nil {
			smp.CPUus = cpuMicros(ticks1-ticks0, w.requests)
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
	socketDetail         string // wrk's line of socket errors, if any
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
		w.socketDetail, _ = strings.CutPrefix(m[0], "Socket errors: ")
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

// httpPeer is the peer server name of httppeers (at bin) in mode, its
// flags for the mode (such as -dir DIR) in args.
func httpPeer(bin, name, label, mode string, args ...string) httpServer {
	return httpServer{mode: mode, benchServer: benchServer{key: modeKey(name, mode), label: label, argv: func(addr string) []string {
		return append([]string{bin, "-server", name, "-addr", addr, "-max-life", "1h"}, args...)
	}}}
}

// ourHTTPServers is package httpserver with one loop, and with one loop
// per core (SO_REUSEPORT), except in the files mode (one loop alone), in
// mode: args are httpserve's flags for it (such as --dir DIR).
func ourHTTPServers(cfg httpConfig, mode string, args ...string) []httpServer {
	build := func(self, key, label string, loops int) httpServer {
		return httpServer{mode: mode, against: strings.HasPrefix(key, "against"), benchServer: benchServer{key: modeKey(key, mode), label: label, env: cfg.selfEnv,
			argv: func(addr string) []string { return ourHTTPServe(cfg, self, loops, args, addr) }}}
	}
	d := cfg.driver
	if d == "" {
		d = "default driver"
	}
	n := runtime.NumCPU()
	perCore := mode != modeFiles
	servers := []httpServer{build(cfg.self, "ours", "ours, "+d+", 1 loop", 1)}
	if perCore {
		servers = append(servers, build(cfg.self, "ours-loops", fmt.Sprintf("ours, %s, %d loops", d, n), n))
	}
	if cfg.against != "" {
		servers = append(servers, build(cfg.against, "against", "against, "+d+", 1 loop", 1))
		if perCore {
			servers = append(servers, build(cfg.against, "against-loops", fmt.Sprintf("against, %s, %d loops", d, n), n))
		}
	}
	return servers
}

// ourHTTPServe is the command line of httpserve (of the build self) on
// addr with loops loops and the flags args.
func ourHTTPServe(cfg httpConfig, self string, loops int, args []string, addr string) []string {
	argv := []string{self, "httpserve", "--loops", strconv.Itoa(loops)}
	if cfg.driver != "" {
		argv = append(argv, "--driver", cfg.driver)
	}
	argv = append(argv, args...)
	return append(argv, addr)
}

// ourBackend is the reverse proxies' backend: our "Hello, World!" with
// one loop, of this build whatever the proxy.
func ourBackend(cfg httpConfig) httpServer {
	d := cfg.driver
	if d == "" {
		d = "default driver"
	}
	return httpServer{mode: modeHello, benchServer: benchServer{key: "backend", label: "backend of the reverse proxies, ours, " + d + ", 1 loop", env: cfg.selfEnv,
		argv: func(addr string) []string { return ourHTTPServe(cfg, cfg.self, 1, nil, addr) }}}
}

// benchCert is the HTTPS tables' certificate, self-signed, for
// 127.0.0.1: its files (PEM), and a pool that trusts it.
type benchCert struct {
	certFile, keyFile string
	pool              *x509.CertPool
}

// writeCert makes a self-signed certificate for 127.0.0.1 (and ::1)
// with an ECDSA P-256 key (package testcert), valid for a day from now,
// and writes them into dir as cert.pem and key.pem.
func writeCert(dir string) (*benchCert, error) {
	c, err := testcert.New(time.Now().Add(24 * time.Hour))
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := c.WriteFiles(dir)
	if err != nil {
		return nil, err
	}
	return &benchCert{certFile: certFile, keyFile: keyFile, pool: c.Pool}, nil
}

// probe checks that GET / over HTTPS on addr answers 200, the server's
// certificate verified against c.
func (c *benchCert) probe(addr string) error {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pool}}
	defer tr.CloseIdleConnections()
	return probeGET(&http.Client{Transport: tr, Timeout: time.Second}, "https://"+addr+"/")
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
// answers GET / with 200 (see benchRun.startServer).
func startHTTPServer(cfg httpConfig, s httpServer) (*httpProc, error) {
	p := &httpProc{allocc: make(chan allocCount, 1)}
	probe := s.probe
	if probe == nil {
		probe = probeHTTP
	}
	srv, err := cfg.startServer(s.benchServer, probe, "no answer", p.takeAllocs)
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
	return probeGET(cl, "http://"+addr+"/")
}

// probeGET checks that GET url answers 200.
func probeGET(cl *http.Client, url string) error {
	resp, err := cl.Get(url)
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
