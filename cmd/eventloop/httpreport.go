package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The report of `bench --http` (JSON with --format json).

// HTTPReport is one `bench --http` run. (Its run fields, Go to
// WindowMS, are NetReport's on purpose apart: their JSON names differ.)
type HTTPReport struct {
	Go, Platform string
	CPUs         int
	Quick        bool
	Reps         int
	WarmupMS     float64
	WindowMS     float64
	Threads      int    // wrk's -t
	Wrk          string // wrk's version line
	Baseline     string // the key of the server the ratios are to
	// FilesBaseline is the key of the server the ratios of the
	// static-file tables are to.
	FilesBaseline string `json:",omitempty"`
	// Load and LoadAfter are the machine's load averages (1, 5, 15 min)
	// when the run began and ended: what else shared the CPUs.
	Load, LoadAfter string
	Servers         []NetServer
	Tables          []HTTPTable
	Failures        []NetFailure `json:",omitempty"`
	Notes           []string     `json:",omitempty"`
}

// The kinds of table (HTTPTable.Mode), and of server.
const (
	modeHello = "hello"
	modeFiles = "files"
	modeProxy = "proxy"
	modeTLS   = "tls"
)

// HTTPTable is one connection count of one mode: "hello" ("Hello,
// World!"), "files" (GETs of the static file File of FileBytes bytes),
// "proxy" (a reverse proxy to a "Hello, World!" backend) or "tls"
// ("Hello, World!" over HTTPS; with Close, wrk sends "Connection: close",
// so that each request has a connection and a TLS handshake of its own).
type HTTPTable struct {
	Mode      string
	Conns     int
	Close     bool   `json:",omitempty"`
	Pipeline  int    `json:",omitempty"` // requests sent at once on a connection
	File      string `json:",omitempty"`
	FileBytes int64  `json:",omitempty"`
	Baseline  string // the key of the row the ratios are to (net/http's)
	Rows      []HTTPRow
}

// HTTPRow is one server's medians over its repetitions.
type HTTPRow struct {
	Server, Label string
	Rate          float64  // requests/s
	Ratio         *float64 // to the baseline, the median of the repetitions' ratios
	P50ms, P99ms  *float64
	CPUus         *float64 // server CPU time per request
	Allocs        *float64 // server heap allocations per request
	AllocBytes    *float64
	Samples       []HTTPSample
}

// HTTPSample is one repetition of one cell.
type HTTPSample struct {
	Rep          int
	Requests     int64
	Seconds      float64
	Rate         float64
	P50ms, P99ms float64
	CPUus        *float64 `json:",omitempty"`
	Allocs       *float64 `json:",omitempty"`
	AllocBytes   *float64 `json:",omitempty"`
	Error        string   `json:",omitempty"`
}

// summarizeHTTP fills each row's medians from its samples that did not
// fail, and its ratio to the baseline row, repetition by repetition.
func summarizeHTTP(t *HTTPTable, baseline string) {
	base := baseSamples(t.Rows, baseline, func(r HTTPRow) (string, []HTTPSample) { return r.Server, r.Samples })
	for i := range t.Rows {
		r := &t.Rows[i]
		var m []*float64
		r.Rate, r.Ratio, m = medians(r.Samples, base,
			func(s HTTPSample) *float64 { return latency(s, &s.P50ms) }, func(s HTTPSample) *float64 { return latency(s, &s.P99ms) },
			func(s HTTPSample) *float64 { return s.CPUus }, func(s HTTPSample) *float64 { return s.Allocs },
			func(s HTTPSample) *float64 { return s.AllocBytes })
		r.P50ms, r.P99ms, r.CPUus, r.Allocs, r.AllocBytes = m[0], m[1], m[2], m[3], m[4]
	}
}

// latency is p, a latency of s, or nil if s has none (the pipelined
// tables: wrk keeps no distribution there).
func latency(s HTTPSample, p *float64) *float64 {
	if s.P99ms == 0 {
		return nil
	}
	return p
}

// writeHTTPMarkdown is apart from writeNetMarkdown on purpose: the two
// reports' headings, columns and failure lines differ.
func writeHTTPMarkdown(w io.Writer, rep *HTTPReport) {
	var hello, proxy, tls bool
	var files []string // what the tables measure
	for _, t := range rep.Tables {
		switch t.Mode {
		case modeHello:
			hello = true
		case modeFiles:
			if !slices.Contains(files, sizeLabel(t.FileBytes)) {
				files = append(files, sizeLabel(t.FileBytes))
			}
		case modeProxy:
			proxy = true
		case modeTLS:
			tls = true
		}
	}
	var what []string
	if hello {
		what = append(what, fmt.Sprintf("%q", "Hello, World!"))
	}
	if len(files) > 0 {
		what = append(what, "static files of "+strings.Join(files, ", ")+" (http.FileServer)")
	}
	if proxy {
		what = append(what, "a reverse proxy (httputil.ReverseProxy) to a \"Hello, World!\" backend")
	}
	if tls {
		what = append(what, "\"Hello, World!\" over HTTPS")
	}
	if len(what) > 1 {
		what = []string{strings.Join(what[:len(what)-1], ", "), what[len(what)-1]}
	}
	fmt.Fprintf(w, "## HTTP: %s, wrk -t%d (%s)\n\n", strings.Join(what, " and "), rep.Threads, rep.Wrk)
	fmt.Fprintf(w, "%s, %s, %d CPUs; each server a process of its own; %.0f ms warm-up, then a %.0f ms window; median of %d repetitions, servers in rotating order",
		rep.Go, rep.Platform, rep.CPUs, rep.WarmupMS, rep.WindowMS, rep.Reps)
	if rep.Load != "" {
		fmt.Fprintf(w, "; load average %s at the start, %s at the end", rep.Load, rep.LoadAfter)
	}
	fmt.Fprintln(w, ". The ratios are to the net/http row of each table, repetition by repetition.")
	if slices.ContainsFunc(rep.Tables, func(t HTTPTable) bool { return t.Pipeline > 1 }) {
		fmt.Fprintln(w, "\nPipelined: each wrk connection sends its requests that many at a time, in one write (wrk's pipeline.lua; TechEmpower's plaintext test sends 16), and wrk counts every response.")
	}
	if len(files) > 0 {
		fmt.Fprintln(w, "\nStatic files: the servers serve http.FileServer over a directory of files that the run writes, one per size, and wrk GETs one of them over keep-alive connections per table; MiB/s counts the files' bytes alone.")
	}
	if proxy {
		fmt.Fprintln(w, "\nReverse proxy: wrk GETs / through each proxy, an httputil.ReverseProxy to one backend for the whole run, ours with one loop serving \"Hello, World!\" (a process of its own; below, under Servers); net/http's proxy over a clone of http.DefaultTransport, ours over package httpclient's Transport on the loop that serves the request, MaxIdleConnsPerHost 1024 both. The server CPU and allocations are the proxy's alone.")
	}
	if tls {
		fmt.Fprintln(w, "\nHTTPS: \"Hello, World!\" with a self-signed ECDSA P-256 certificate that the run writes, each server with its library's TLS defaults; over keep-alive connections, and, where wrk sends \"Connection: close\", a TCP connection and a TLS handshake per request. wrk resumes the TLS session when it reconnects, so that all but the first handshake of each of its connections are resumptions (in TLS 1.3: a key exchange, without the certificate's signature).")
	}
	if rep.Quick {
		fmt.Fprintln(w, "\n--quick: a smoke run; the figures are not to be quoted.")
	}
	for _, t := range rep.Tables {
		fmt.Fprintf(w, "\n### %s\n\n", httpTableTitle(t))
		if t.Mode != modeFiles {
			fmt.Fprintln(w, "| server | requests/s | × net/http | p50 | p99 | server CPU/request | allocs/request | bytes/request |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		} else {
			fmt.Fprintln(w, "| server | requests/s | × net/http | MiB/s | p50 | p99 | server CPU/request | allocs/request | bytes/request |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
		}
		for _, r := range t.Rows {
			mibs := ""
			if t.Mode == modeFiles {
				mibs = fmt.Sprintf(" %.0f |", r.Rate*float64(t.FileBytes)/(1<<20))
			}
			fmt.Fprintf(w, "| %s | %.0f | %s |%s %s | %s | %s | %s | %s |\n", r.Label, r.Rate,
				optf(r.Ratio, "%.2f×"), mibs, optf(r.P50ms, "%.2f ms"), optf(r.P99ms, "%.2f ms"),
				optf(r.CPUus, "%.2f µs"), optf(r.Allocs, "%.1f"), optf(r.AllocBytes, "%.0f B"))
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintln(w, "\nFailed cells:")
		for _, f := range rep.Failures {
			mode := ""
			if f.Mode != "http" {
				mode = ", " + f.Mode
			}
			fmt.Fprintf(w, "- %s%s, C=%d, rep %d: %s\n", f.Server, mode, f.Conns, f.Rep+1, oneLine(f.Error))
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "\n"+n)
	}
	fmt.Fprintln(w, "\nServers:")
	for _, s := range rep.Servers {
		fmt.Fprintf(w, "- %s: `%s`\n", s.Label, strings.Join(s.Command, " "))
	}
}

// httpTableTitle is the heading of t: what it measures, and how many
// connections.
func httpTableTitle(t HTTPTable) string {
	switch t.Mode {
	case modeFiles:
		return fmt.Sprintf("static file of %s (GET /%s), %d connections", sizeLabel(t.FileBytes), t.File, t.Conns)
	case modeProxy:
		return fmt.Sprintf("reverse proxy to a hello backend, %d connections", t.Conns)
	case modeTLS:
		if t.Close {
			return fmt.Sprintf("HTTPS, a handshake per request, %d connections", t.Conns)
		}
		return fmt.Sprintf("HTTPS keep-alive, %d connections", t.Conns)
	}
	if t.Pipeline > 1 {
		return fmt.Sprintf("%q, pipelined %d deep, %d connections", "Hello, World!", t.Pipeline, t.Conns)
	}
	if t.Close {
		return fmt.Sprintf("%q, a connection per request, %d connections", "Hello, World!", t.Conns)
	}
	return fmt.Sprintf("%q, %d connections", "Hello, World!", t.Conns)
}

// sizeLabel is n bytes as the tables say it: 1 KiB, 5 MiB, 100 B.
func sizeLabel(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

func optf(v *float64, format string) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf(format, *v)
}
