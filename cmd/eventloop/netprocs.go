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
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The processes of the network benchmark: a server is started, waited for
// until it echoes, and stopped; a client runs one cell. Every wait is
// bounded, and every process started is reaped before its function
// returns, or before its server's cells end.

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
// (see startProc).
func startServer(cfg netConfig, s netServer) (*runningServer, error) {
	return startProc(procStart{
		argv: s.argv, env: s.env, started: cfg.started,
		probe: probeEcho, probeWhat: "no echo",
		ready: cmp.Or(cfg.readyTimeout, serverReadyTimeout),
	})
}

// procStart says how to start a server process (of bench --net or
// --http) and how to tell that it serves.
type procStart struct {
	argv    func(addr string) []string
	env     []string
	started func(pid int) // told the pid, if not nil
	// probe succeeds once the server at addr serves; probeWhat names its
	// failure in the error.
	probe     func(addr string) error
	probeWhat string
	ready     time.Duration
	// line, if not nil, sees each line of the server's standard output; the
	// lines it does not take go to the tail kept for error messages.
	line func(string) bool
}

// startProc starts a server on a free loopback port and waits until it
// serves. The port is the kernel's pick for a socket bound to port 0 and
// closed at once, so another process may take it in between: a server
// that exits before it serves (it could not bind) is tried again on a new
// port, three times in all.
func startProc(st procStart) (*runningServer, error) {
	var err error
	for range 3 {
		var srv *runningServer
		srv, err = startProcOnce(st)
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

// startProcOnce returns the server, started, with an error if it is not
// serving; the caller stops it then.
func startProcOnce(st procStart) (*runningServer, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	argv := st.argv(addr)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), st.env...)
	out := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	var stdout io.Reader
	if st.line != nil {
		cmd.Stdout = nil
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if st.started != nil {
		st.started(cmd.Process.Pid)
	}
	srv := &runningServer{cmd: cmd, addr: addr, out: out, done: make(chan struct{})}
	go func() {
		if stdout != nil {
			// Wait closes the pipe: read it to its end first.
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if !st.line(sc.Text()) {
					fmt.Fprintln(out, sc.Text())
				}
			}
		}
		srv.err = cmd.Wait()
		close(srv.done)
	}()
	for deadline := time.Now().Add(st.ready); ; {
		perr := st.probe(addr)
		if srv.exited() {
			return srv, fmt.Errorf("exited before serving (%v): %s", srv.err, oneLine(out.String()))
		}
		if perr == nil {
			return srv, nil
		}
		if time.Now().After(deadline) {
			return srv, fmt.Errorf("%s on %s after %v: %v: %s", st.probeWhat, addr, st.ready, perr, oneLine(out.String()))
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
	cmd.SysProcAttr = childProcAttr()
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return res, err
	}
	if cfg.started != nil {
		cfg.started(cmd.Process.Pid)
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
