//go:build unix

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The harness that `bench --net` (netbench.go) and `bench --http`
// (httpbench.go) share: a run's settings, the servers, each a process of
// its own, started, waited for until they serve, and stopped around their
// cells; the peers' build, the clients' processes and the report's output.
// Every wait is bounded, and every process started is reaped before its
// function returns, or before its server's cells end.

// Bounds: how long a server may take to answer its first echo, and to
// exit after SIGTERM before it is killed.
const (
	serverReadyTimeout = 10 * time.Second
	serverStopTimeout  = 5 * time.Second
)

// runningServer is a server process.
type runningServer struct {
	cmd  *exec.Cmd
	addr string
	out  *tailBuffer
	done chan struct{} // closed once the process is reaped
	err  error         // Wait's, once done is closed
}

func (s *runningServer) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// startServer starts s on a free loopback port and waits until it echoes
// (see benchRun.startServer).
func startServer(cfg netConfig, s benchServer) (*runningServer, error) {
	return cfg.startServer(s, probeEcho, "no echo", nil)
}

// startServer starts s on a free loopback port and waits until probe
// says it serves (probeWhat names its failure); line, if not nil, sees
// each line of its standard output, and those it does not take go to the
// tail kept for error messages. The port is the kernel's pick for a
// socket bound to port 0 and closed at once, so another process may take
// it in between: a server that exits before it serves (it could not bind)
// is tried again on a new port, three times in all.
func (run benchRun) startServer(s benchServer, probe func(addr string) error, probeWhat string, line func(string) bool) (*runningServer, error) {
	var err error
	for range 3 {
		var srv *runningServer
		srv, err = run.startOnce(s, probe, probeWhat, line)
		if err == nil || srv == nil {
			return srv, err
		}
		if !srv.exited() {
			// Running but not serving: trying again would not help.
			return nil, errors.Join(err, srv.stop())
		}
	}
	return nil, err
}

// startOnce returns the server, started, with an error if it is not
// serving; the caller stops it then.
func (run benchRun) startOnce(s benchServer, probe func(addr string) error, probeWhat string, line func(string) bool) (*runningServer, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	argv := s.argv(addr)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	out := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	var stdout io.Reader
	if line != nil {
		cmd.Stdout = nil
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := startChild(cmd, run.started); err != nil {
		return nil, err
	}
	srv := &runningServer{cmd: cmd, addr: addr, out: out, done: make(chan struct{})}
	go func() {
		if stdout != nil {
			// Wait closes the pipe: read it to its end first.
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if !line(sc.Text()) {
					fmt.Fprintln(out, sc.Text())
				}
			}
		}
		srv.err = cmd.Wait()
		close(srv.done)
	}()
	ready := cmp.Or(run.readyTimeout, serverReadyTimeout)
	for deadline := time.Now().Add(ready); ; {
		perr := probe(addr)
		if srv.exited() {
			return srv, fmt.Errorf("exited before serving (%v): %s", srv.err, oneLine(out.String()))
		}
		if perr == nil {
			return srv, nil
		}
		if time.Now().After(deadline) {
			return srv, fmt.Errorf("%s on %s after %v: %v: %s", probeWhat, addr, ready, perr, oneLine(out.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM, or SIGKILL if it has not exited
// within serverStopTimeout, and reaps it. The error says how it ended when
// that was not by the SIGTERM.
func (s *runningServer) stop() error {
	if s.exited() {
		return fmt.Errorf("had exited before its stop (%v): %s", s.err, oneLine(s.out.String()))
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.cmd.Process.Kill()
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(serverStopTimeout):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("still running %v after SIGTERM: killed", serverStopTimeout)
	}
}

// freeLoopbackAddr is a port on 127.0.0.1 that the kernel calls free.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// probeEcho connects to addr and checks that one message comes back.
func probeEcho(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	msg, got := make([]byte, netMsgSize), make([]byte, netMsgSize)
	fillMsg(msg, 1<<63, 0)
	if _, err := c.Write(msg); err != nil {
		return err
	}
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, msg) {
		return errors.New("the echo differs from what was sent")
	}
	return nil
}

// runClient runs one cell: a client process against srv. It is killed if
// it outlives its own bounds by ten seconds.
func runClient(cfg netConfig, srv *runningServer, mode string, conns int) (netClientResult, error) {
	var res netClientResult
	ctx, cancel := context.WithTimeout(context.Background(), cfg.warmup+cfg.window+netClientGrace+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.self, "netclient", "-addr", srv.addr, "-mode", mode,
		"-conns", strconv.Itoa(conns), "-warmup", cfg.warmup.String(), "-window", cfg.window.String(),
		"-pid", strconv.Itoa(srv.cmd.Process.Pid))
	cmd.Env = append(os.Environ(), cfg.selfEnv...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	cmd.WaitDelay = time.Second
	if err := startChild(cmd, cfg.started); err != nil {
		return res, err
	}
	werr := cmd.Wait()
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		return res, fmt.Errorf("client: %v: %s", errors.Join(werr, jerr), oneLine(stderr.String()))
	}
	if res.Error != "" {
		return res, errors.New(res.Error)
	}
	if werr != nil {
		return res, fmt.Errorf("client: %v: %s", werr, oneLine(stderr.String()))
	}
	return res, nil
}

// tailBuffer keeps the last 2 KiB written to it: a child's output, for
// error messages.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

const tailMax = 2 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// benchRun is what a run of either benchmark is, whatever it measures.
type benchRun struct {
	warmup, window time.Duration
	reps           int
	quick          bool
	// self runs the eventloop command (our servers, and bench --net's
	// client): the executable, and variables added to its environment.
	self    string
	selfEnv []string
	against string // another build of the command: its servers too
	peers   bool   // build and run the peers (bench/netpeers, bench/httppeers)
	// progress gets one line per cell; started, when set, is told the
	// pid of every process started (tests check that none is left).
	progress io.Writer
	started  func(pid int)
	// readyTimeout bounds the wait for a server to serve (0:
	// serverReadyTimeout).
	readyTimeout time.Duration
}

func (run benchRun) logf(format string, args ...any) {
	if run.progress != nil {
		fmt.Fprintf(run.progress, format+"\n", args...)
	}
}

// repf logs a line of repetition rep: "[rep 1/3] ...".
func (run benchRun) repf(rep int, format string, args ...any) {
	run.logf("[rep %d/%d] "+format, append([]any{rep + 1, run.reps}, args...)...)
}

// benchServer is one server to measure; argv gives its command line for
// an address.
type benchServer struct {
	key, label string
	env        []string
	argv       func(addr string) []string
}

// measureOn starts a server (named name in the progress lines) with
// start, runs cells on it and stops it. If it does not start, that is
// logged, and the error returned, without cells.
func measureOn[P interface{ stop() error }](run benchRun, rep int, name string, start func() (P, error), cells func(P)) error {
	srv, err := start()
	if err != nil {
		run.repf(rep, "%s: %v", name, err)
		return err
	}
	defer func() {
		if err := srv.stop(); err != nil {
			run.repf(rep, "%s: stop: %v", name, err)
		}
	}()
	cells(srv)
	return nil
}

// startChild starts cmd, a client of a cell (wrk, netclient) or a server,
// in the process attributes of a child (childProcAttr), and tells
// run.started its pid; the caller waits for it.
func startChild(cmd *exec.Cmd, started func(pid int)) error {
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	return nil
}

// buildPeers builds bench/NAME (netpeers, httppeers) into dir and returns
// the binary's path, or a note saying why there is none.
func buildPeers(dir, name string, progressW io.Writer) (bin, note string) {
	root, _ := findClone()
	if root == "" {
		return "", "peers not run: the peers module (bench/) is not under the working directory; run this command inside a clone"
	}
	if _, err := os.Stat(filepath.Join(root, "bench", name)); err != nil {
		return "", "peers not run: " + err.Error()
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", "peers not run: no go command on PATH"
	}
	bin = filepath.Join(dir, name)
	args := []string{"-C", filepath.Join(root, "bench"), "build", "-o", bin, "./" + name}
	if progressW != nil {
		fmt.Fprintf(progressW, "%s: go %s\n", name, strings.Join(args, " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goCmd, args...).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("peers not run: building bench/%s failed (%v): %s", name, err, oneLine(string(out)))
	}
	return bin, ""
}

// shownCommand is argv as the report shows it: the executable's base name
// (they are temporary builds), and the run's paths and ports by the names
// in names.
func shownCommand(argv []string, names map[string]string) []string {
	argv[0] = filepath.Base(argv[0])
	for j, a := range argv {
		if n, ok := names[a]; ok && a != "" {
			argv[j] = n
		}
	}
	return argv
}

// writeReport prints rep, as JSON or with markdown, and fails if any of
// its cells did.
func writeReport(w io.Writer, format string, rep any, markdown func(io.Writer), failures int) error {
	var err error
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		markdown(w)
	}
	if err == nil && failures > 0 {
		err = fmt.Errorf("%d cell(s) failed (listed under the tables)", failures)
	}
	return err
}
