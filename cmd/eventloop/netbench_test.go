//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
)

// TestNetBenchTiny runs the network benchmark end to end in its smallest
// shape: our echo on the default driver, one connection, both modes, a
// short window, the server and each cell's client a process of this test
// binary. It checks the table's row and that the rate is positive, never a
// speed, and that no process or goroutine is left.
func TestNetBenchTiny(t *testing.T) {
	watchdog(t, 2*time.Minute)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g0 := runtime.NumGoroutine()
	driver := eventloop.DefaultDriver()
	var pids []int
	var progress bytes.Buffer
	cfg := netConfig{
		modes: []string{modePingPong, modePipelined}, conns: []int{1},
		drivers: []string{driver},
		benchRun: benchRun{
			warmup: 50 * time.Millisecond, window: 200 * time.Millisecond, reps: 1, quick: true,
			self: self, selfEnv: []string{testCommandEnv + "=1"},
			against:  self, // another build's servers: here the same one
			progress: &progress,
			started:  func(pid int) { pids = append(pids, pid) },
		},
	}
	rep, err := netBench(cfg)
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
	labels := []string{"ours, " + driver, "ours, served, " + driver, "against, " + driver, "against, served, " + driver}
	for _, tb := range rep.Tables {
		if len(tb.Rows) != len(labels) {
			t.Fatalf("%s: rows %+v", tb.Mode, tb.Rows)
		}
		for i, label := range labels {
			row := tb.Rows[i]
			if row.Label != label || row.Rate <= 0 || len(row.Samples) != 1 || row.Samples[0].RoundTrips <= 0 {
				t.Errorf("%s: row %+v, want %q", tb.Mode, row, label)
			}
			if row.Ratio != nil {
				t.Errorf("%s: a ratio without the baseline: %v", tb.Mode, *row.Ratio)
			}
		}
	}
	// Four servers and a client per cell, each a process of its own, and
	// the run of --help that says the against build serves, all gone.
	if len(pids) != 13 || len(slices.Compact(slices.Sorted(slices.Values(pids)))) != 13 {
		t.Errorf("processes started: %v, want four servers, eight clients and a --help", pids)
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
	writeNetMarkdown(&md, rep)
	for _, want := range []string{"## ping-pong, C = 1\n", "## pipelined, 16 deep, C = 1\n", "| ours, " + driver + " | ", "| ours, served, " + driver + " | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("markdown:\n%s", md.String())
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}

// TestNetClientArgs: the client refuses what it cannot measure, and a
// server pid that is its own (the client must be another process).
func TestNetClientArgs(t *testing.T) {
	// A listener that accepts, so that a check left out would dial it and
	// fail later with another error, or not at all.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want -addr HOST:PORT"},
		{[]string{"-addr", addr, "-mode", "nope"}, `unknown -mode "nope"`},
		{[]string{"-addr", addr, "-conns", "0"}, "-conns 0: want 1 to 10000"},
		{[]string{"-addr", addr, "-window", "0s"}, "want a positive window"},
		{[]string{"-addr", addr, "-pid", strconv.Itoa(os.Getpid())}, "-pid is the client's own process"},
	} {
		var out bytes.Buffer
		if err := netClientCmd(c.args, &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestNetServerStartFails: a server that exits at once is tried again on a
// new port, three times; one that runs but never echoes is killed after
// the ready timeout. Either way the error says so and no process is left.
func TestNetServerStartFails(t *testing.T) {
	watchdog(t, time.Minute)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	cfg := netConfig{benchRun: benchRun{self: self, selfEnv: []string{testCommandEnv + "=1"},
		started: func(pid int) { pids = append(pids, pid) }, readyTimeout: 30 * time.Second}}

	exits := benchServer{key: "x", label: "x", env: cfg.selfEnv, argv: func(addr string) []string {
		return []string{self, "echo", "--driver", "nosuch", addr}
	}}
	if _, err := startServer(cfg, exits); err == nil || !strings.Contains(err.Error(), "exited before serving") {
		t.Errorf("a server that exits: %v", err)
	}
	if len(pids) != 3 {
		t.Errorf("a server that exits was started %d times, want 3", len(pids))
	}

	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command for a server that never answers")
	}
	exited := pids
	pids = nil
	silent := benchServer{key: "y", label: "y", argv: func(string) []string { return []string{sleep, "60"} }}
	// The wait for a server that exits is bounded by its exit (a race
	// build of this command can take more than a second to start on a
	// loaded machine); for one that never answers, by readyTimeout.
	cfg.readyTimeout = 300 * time.Millisecond
	start := time.Now()
	if _, err := startServer(cfg, silent); err == nil || !strings.Contains(err.Error(), "no echo") {
		t.Errorf("a server that never answers: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("gave up after %v", d)
	}
	if len(pids) != 1 {
		t.Errorf("a server that never answers was started %d times, want 1", len(pids))
	}
	for _, pid := range append(exited, pids...) {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there (kill 0: %v)", pid, err)
		}
	}
}

// TestNetIdleTiny runs the idle table end to end in its smallest shape:
// ours on the default driver, served and with a fiber in Read, holding a
// few dozen conns of a client process, a few of them active. It checks
// that each row measured memory, that ours measured its timers' lateness,
// that the active conns' lines came back, and that no process is left;
// never a figure.
func TestNetIdleTiny(t *testing.T) {
	watchdog(t, 2*time.Minute)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	driver := eventloop.DefaultDriver()
	var pids []int
	var progress bytes.Buffer
	cfg := netConfig{
		drivers:   []string{driver},
		idleConns: 40, idleInterval: 50 * time.Millisecond, idleWindow: 300 * time.Millisecond,
		benchRun: benchRun{reps: 1, quick: true, self: self, selfEnv: []string{testCommandEnv + "=1"},
			progress: &progress, started: func(pid int) { pids = append(pids, pid) }},
	}
	rep := &NetReport{Reps: 1}
	idleBench(cfg, rep, "")
	t.Logf("progress:\n%s", progress.String())
	if len(rep.Failures) > 0 || rep.Idle == nil {
		t.Fatalf("failures: %+v, notes %q", rep.Failures, rep.Notes)
	}
	if rep.Idle.Conns != 40 {
		t.Errorf("%d conns held, want 40", rep.Idle.Conns)
	}
	labels := []string{"ours, served, " + driver, "ours, " + driver + ", a fiber in Read"}
	if len(rep.Idle.Rows) != len(labels) {
		t.Fatalf("rows %+v", rep.Idle.Rows)
	}
	for i, r := range rep.Idle.Rows {
		if r.Label != labels[i] || r.Heap == nil || r.Stacks == nil || r.RSS == nil || r.LatenessP99ms == nil || r.TickerP99ms == nil || r.LineP99ms == nil {
			t.Errorf("row %+v, want %q measured", r, labels[i])
			continue
		}
		// 40 conns, every 100th active: the first alone, 6 lines in 300 ms.
		if s := r.Samples[0]; s.Timers == 0 || s.Active != 1 || s.Lines < 1 {
			t.Errorf("%s: sample %+v: want timers run, one active conn and its lines", r.Label, s)
		}
	}
	// A server and a client each, all gone.
	if len(pids) != 4 {
		t.Errorf("processes started: %v, want two servers and two clients", pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there (kill 0: %v)", pid, err)
		}
	}
	var md bytes.Buffer
	writeNetMarkdown(&md, rep)
	for _, want := range []string{"## Idle connections, N = 40\n", "| ours, served, " + driver + " | none | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestNetIdleArgs: the idle client refuses what it cannot hold.
func TestNetIdleArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want -addr HOST:PORT"},
		{[]string{"-addr", "127.0.0.1:1", "-conns", "0"}, "-conns 0: want at least 1"},
		{[]string{"-addr", "127.0.0.1:1", "-active-every", "0"}, "-active-every 0"},
		{[]string{"-addr", "127.0.0.1:1", "-interval", "0s"}, "-interval 0s"},
		{[]string{"-addr", "127.0.0.1:1", "-conns", "2000000000"}, "RLIMIT_NOFILE"},
	} {
		if err := netIdleCmd(c.args, strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestEchoKnows: the flags of another build's echo are read from its
// --help, a flag it lacks is not found.
func TestEchoKnows(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := netConfig{benchRun: benchRun{against: self, selfEnv: []string{testCommandEnv + "=1"}}}
	if !echoKnows(cfg, "serve") {
		t.Error("this build's echo does not know --serve")
	}
	if echoKnows(cfg, "nosuch") || echoKnows(cfg, "serv") {
		t.Error("a flag echo lacks is found")
	}
}
