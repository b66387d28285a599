//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/revoltgo/eventloop"
)

// The network benchmark, `bench --net`: TCP echo servers, ours (the
// command's echo on each driver) and the peers (bench/netpeers: the
// standard library, evio, gnet), each in a process of its own, under the
// load of a client process (netclient.go) per cell.

// netConfig is what one `bench --net` run measures.
type netConfig struct {
	benchRun
	modes   []string
	conns   []int
	drivers []string // ours: one server per driver
	loops   bool     // ours: also epoll with one loop per core
	// The idle table (netidlebench.go): conns held per server (0: no
	// table), how often an active one sends a line, and how long the
	// active conns are measured.
	idleConns                int
	idleInterval, idleWindow time.Duration
}

// The sizes of the two modes (what they take: the command's doc).
var (
	netFull = netConfig{conns: []int{1, 16, 128}, benchRun: benchRun{warmup: 500 * time.Millisecond, window: 2 * time.Second, reps: 3},
		idleConns: 100_000, idleInterval: time.Second, idleWindow: 5 * time.Second}
	netQuick = netConfig{conns: []int{16}, benchRun: benchRun{warmup: 100 * time.Millisecond, window: 300 * time.Millisecond, reps: 1, quick: true},
		idleConns: 2000, idleInterval: time.Second, idleWindow: time.Second}
)

// The server the ratios are to: gnet on one loop, the peer closest to ours
// (one loop, callbacks, no goroutine per connection).
const (
	baselineKey   = "gnet"
	baselineLabel = "gnet, 1 loop"
)

func netBenchCmd(driver string, quick, peers bool, against, format string, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this command's executable, which runs the client and our servers: %w", err)
	}
	cfg := netFull
	if quick {
		cfg = netQuick
	}
	cfg.modes = []string{modePingPong, modePipelined}
	cfg.self, cfg.drivers, cfg.loops, cfg.peers, cfg.progress = self, eventloop.Drivers(), true, peers, stderr
	cfg.against = against
	if driver != "" {
		cfg.drivers, cfg.loops = []string{driver}, driver == "epoll"
	}
	rep, err := netBench(cfg)
	if err != nil {
		return err
	}
	return writeReport(stdout, format, rep, func(w io.Writer) { writeNetMarkdown(w, rep) }, len(rep.Failures))
}

func netBench(cfg netConfig) (*NetReport, error) {
	rep := &NetReport{
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(),
		Quick: cfg.quick, Reps: cfg.reps, WarmupMS: ms(cfg.warmup), WindowMS: ms(cfg.window),
		MsgBytes: netMsgSize, Depth: netPipelineDepth, Baseline: baselineLabel,
	}
	var servers []benchServer
	peersBin := ""
	if cfg.peers {
		dir, err := os.MkdirTemp("", "eventloop-netpeers-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		var peers []benchServer
		var note string
		peers, peersBin, note = peerServers(dir, cfg.progress)
		servers = append(servers, peers...)
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
	}
	ours, notes := ourServers(cfg)
	servers = append(servers, ours...)
	rep.Notes = append(rep.Notes, notes...)
	if len(servers) == 0 {
		return nil, errors.New("no server to measure")
	}
	for _, s := range servers {
		rep.Servers = append(rep.Servers, NetServer{Key: s.key, Label: s.label, Command: shownCommand(s.argv("ADDR"), nil)})
	}
	// samples[server][mode*len(conns)+conn], filled repetition by repetition.
	cells := len(cfg.modes) * len(cfg.conns)
	samples := make([][][]NetSample, len(servers))
	for i := range samples {
		samples[i] = make([][]NetSample, cells)
	}
	for r, i := range rotations(cfg.reps, len(servers)) {
		for c, smp := range measureServer(cfg, servers[i], r) {
			samples[i][c] = append(samples[i][c], smp)
			if smp.Error != "" {
				rep.Failures = append(rep.Failures, NetFailure{Server: servers[i].label,
					Mode: cfg.modes[c/len(cfg.conns)], Conns: cfg.conns[c%len(cfg.conns)], Rep: r, Error: smp.Error})
			}
		}
	}
	for m, mode := range cfg.modes {
		for k, c := range cfg.conns {
			t := NetTable{Mode: mode, Conns: c}
			for i, s := range servers {
				t.Rows = append(t.Rows, NetRow{Server: s.key, Label: s.label, Samples: samples[i][m*len(cfg.conns)+k]})
			}
			summarize(&t, baselineKey)
			rep.Tables = append(rep.Tables, t)
		}
	}
	if cfg.idleConns > 0 {
		idleBench(cfg, rep, peersBin)
	}
	return rep, nil
}

// measureServer starts server s, runs its cells and stops it. A server
// that does not start fails all its cells with the reason.
func measureServer(cfg netConfig, s benchServer, rep int) []NetSample {
	out := make([]NetSample, 0, len(cfg.modes)*len(cfg.conns))
	err := measureOn(cfg.benchRun, rep, s.label, func() (*runningServer, error) { return startServer(cfg, s) }, func(srv *runningServer) {
		for _, mode := range cfg.modes {
			for _, c := range cfg.conns {
				res, err := runClient(cfg, srv, mode, c)
				if err == nil && srv.exited() {
					err = fmt.Errorf("the server exited during the cell: %s", srv.out.String())
				}
				smp := newSample(rep, res, err)
				out = append(out, smp)
				line := fmt.Sprintf("%.0f round trips/s", smp.Rate)
				if smp.Error != "" {
					line = "FAILED: " + oneLine(smp.Error)
				} else if smp.CPUus != nil {
					line += fmt.Sprintf(", server CPU %.2f µs/round trip", *smp.CPUus)
				}
				cfg.repf(rep, "%s, %s, C=%d: %s", s.label, modeTitle(mode), c, line)
			}
		}
	})
	if err != nil {
		for range cap(out) {
			out = append(out, NetSample{Rep: rep, Error: "start: " + err.Error()})
		}
	}
	return out
}

// peerServers builds bench/netpeers into dir and returns its servers of
// the echo tables and its binary, or a note saying why there are none.
func peerServers(dir string, progressW io.Writer) ([]benchServer, string, string) {
	bin, note := buildPeers(dir, "netpeers", progressW)
	if note != "" {
		return nil, "", note
	}
	return []benchServer{
		peerServer(bin, "stdlib", "stdlib, goroutine per connection"),
		peerServer(bin, "evio", "evio, 1 loop"),
		peerServer(bin, "evio-multi", "evio, NumLoops -1"),
		peerServer(bin, baselineKey, baselineLabel),
		peerServer(bin, "gnet-multi", "gnet, multicore"),
	}, bin, ""
}

// peerServer is netpeers' server key, with flags. A peer outlives a
// benchmark that died without stopping it by an hour at most.
func peerServer(bin, key, label string, flags ...string) benchServer {
	return benchServer{key: key, label: label, argv: func(addr string) []string {
		return append([]string{bin, "-server", key, "-addr", addr, "-max-life", "1h"}, flags...)
	}}
}

// ourServers is `eventloop echo` with one loop on each driver of cfg, a
// fiber per connection and served (--serve), and on epoll with one loop
// per core (SO_REUSEPORT), a fiber per connection.
func ourServers(cfg netConfig) ([]benchServer, []string) {
	var servers []benchServer
	var notes []string
	build := func(self, key, label string, flags ...string) benchServer {
		return benchServer{key: key, label: label, env: cfg.selfEnv, argv: func(addr string) []string {
			return append(append([]string{self, "echo"}, flags...), addr)
		}}
	}
	ours := func(key, label string, flags ...string) benchServer {
		return build(cfg.self, key, label, flags...)
	}
	againstServes := false
	if cfg.against != "" {
		if againstServes = echoKnows(cfg, "serve"); !againstServes {
			notes = append(notes, "against: no served rows: its echo does not know --serve (a build older than the served mode).")
		}
	}
	for _, d := range cfg.drivers {
		servers = append(servers,
			ours("ours-"+d, "ours, "+d, "--driver", d, "--loops", "1"),
			ours("ours-served-"+d, "ours, served, "+d, "--driver", d, "--loops", "1", "--serve"))
		if cfg.against != "" {
			servers = append(servers, build(cfg.against, "against-"+d, "against, "+d, "--driver", d, "--loops", "1"))
		}
		if againstServes {
			servers = append(servers, build(cfg.against, "against-served-"+d, "against, served, "+d, "--driver", d, "--loops", "1", "--serve"))
		}
	}
	if !slices.Contains(eventloop.Drivers(), "kqueue") {
		notes = append(notes, "kqueue: not offered by this build (on Linux it needs the eventloop_libkqueue build tag); skipped.")
	}
	if cfg.loops && slices.Contains(cfg.drivers, "epoll") {
		n := strconv.Itoa(runtime.NumCPU())
		servers = append(servers, ours("ours-epoll-loops", "ours, epoll, --loops "+n, "--driver", "epoll", "--loops", n))
	}
	return servers, notes
}

// echoKnows reports whether the echo of cfg.against has the flag name,
// from what its --help lists.
func echoKnows(cfg netConfig, name string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.against, "echo", "--help")
	cmd.Env = append(os.Environ(), cfg.selfEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if startChild(cmd, cfg.started) != nil {
		return false
	}
	cmd.Wait() // the exit status of --help is no answer
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "-"+name {
			return true
		}
	}
	return false
}
