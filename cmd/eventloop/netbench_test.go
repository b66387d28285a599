//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
	for _, tb := range rep.Tables {
		if len(tb.Rows) != 2 {
			t.Fatalf("%s: rows %+v", tb.Mode, tb.Rows)
		}
		for i, label := range []string{"ours, " + driver, "against, " + driver} {
			row := tb.Rows[i]
			if row.Label != label || row.Rate <= 0 || len(row.Samples) != 1 || row.Samples[0].RoundTrips <= 0 {
				t.Errorf("%s: row %+v, want %q", tb.Mode, row, label)
			}
			if row.Ratio != nil {
				t.Errorf("%s: a ratio without the baseline: %v", tb.Mode, *row.Ratio)
			}
		}
	}
	// Two servers and a client per cell, each a process of its own, all
	// gone.
	if len(pids) != 6 || len(slices.Compact(slices.Sorted(slices.Values(pids)))) != 6 {
		t.Errorf("processes started: %v, want two servers and four clients", pids)
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
	for _, want := range []string{"## ping-pong, C = 1\n", "## pipelined, 16 deep, C = 1\n", "| ours, " + driver + " | "} {
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
