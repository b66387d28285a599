//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

// The idle table of bench --net: each idle server (ours served and with a
// fiber in Read, the standard library, nbio, gnet) holds N connections of
// a client process (`eventloop netidle`, netidle_unix.go), and says on
// SIGUSR2 what its heap and stacks hold (echoanswer_unix.go; netpeers
// answers alike); the resident set is read from /proc. Then every
// idleActiveEvery-th connection sends a line every idleInterval, and ours
// say how late the loop's timers ran meanwhile, a Repeat timer running.

// The idle measurement's settings besides a run's (netConfig).
const (
	idleActiveEvery = 100                   // 1 % of the conns are active
	idleTimer       = 10 * time.Millisecond // ours: the Repeat timer whose lateness is measured
	// idleReadBuf is the read buffer per conn of the servers that keep
	// one (a fiber or a goroutine in Read), the size of a message: small,
	// so that their rows say what a conn costs beyond its buffer.
	idleReadBuf = netMsgSize
	// idleAskTimeout bounds an answer to SIGUSR2 (two collections).
	idleAskTimeout = 30 * time.Second
)

// idleServer is a server of the idle table.
type idleServer struct {
	benchServer
	readBuf    int  // bytes of read buffer a conn holds (0: the server shares one)
	fdsPerConn int  // descriptors a conn takes in the server (netpoll dups each)
	lateness   bool // it answers with its loop's timer lateness
}

// idleServers is what the idle table measures: ours on the first driver
// of cfg, served and with a fiber in Read, and, from the peers' binary
// (if any), the standard library, nbio and gnet.
func idleServers(cfg netConfig, peersBin string) []idleServer {
	var out []idleServer
	if len(cfg.drivers) > 0 {
		d := cfg.drivers[0]
		fds := 1
		if d == "netpoll" {
			fds = 2
		}
		ours := func(key, label string, readBuf int, flags ...string) idleServer {
			flags = append([]string{"--driver", d, "--loops", "1", "--timer", idleTimer.String()}, flags...)
			return idleServer{benchServer: benchServer{key: key, label: label, env: cfg.selfEnv, argv: func(addr string) []string {
				return append(append([]string{cfg.self, "echo"}, flags...), addr)
			}}, readBuf: readBuf, fdsPerConn: fds, lateness: true}
		}
		out = append(out,
			ours("ours-served-"+d, "ours, served, "+d, 0, "--serve"),
			ours("ours-"+d, "ours, "+d+", a fiber in Read", idleReadBuf, "--buf", strconv.Itoa(idleReadBuf)))
	}
	if peersBin != "" {
		out = append(out,
			idleServer{benchServer: peerServer(peersBin, "stdlib", "stdlib, a goroutine in Read", "-buf", strconv.Itoa(idleReadBuf)),
				readBuf: idleReadBuf, fdsPerConn: 1},
			idleServer{benchServer: peerServer(peersBin, "nbio", "nbio, its defaults"), fdsPerConn: 1},
			idleServer{benchServer: peerServer(peersBin, baselineKey, baselineLabel), fdsPerConn: 1})
	}
	return out
}

// idleBench measures the idle table into rep: each server of
// idleServers in rotating order, cfg.reps times.
func idleBench(cfg netConfig, rep *NetReport, peersBin string) {
	servers := idleServers(cfg, peersBin)
	n, note := idleConns(cfg, servers)
	if note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	if n <= 0 || len(servers) == 0 {
		return
	}
	idle := &NetIdle{Conns: n, Asked: cfg.idleConns, ActiveEvery: idleActiveEvery,
		IntervalMS: ms(cfg.idleInterval), WindowMS: ms(cfg.idleWindow), TimerMS: ms(idleTimer), LineBytes: netIdleLine}
	samples := make([][]NetIdleSample, len(servers))
	for r, i := range rotations(cfg.reps, len(servers)) {
		smp := measureIdle(cfg, servers[i], n, r)
		samples[i] = append(samples[i], smp)
		if smp.Error != "" {
			rep.Failures = append(rep.Failures, NetFailure{Server: servers[i].label, Mode: modeIdle, Conns: n, Rep: r, Error: smp.Error})
		}
	}
	for i, s := range servers {
		row := NetIdleRow{Server: s.key, Label: s.label, ReadBuf: s.readBuf, Samples: samples[i]}
		summarizeIdle(&row)
		idle.Rows = append(idle.Rows, row)
	}
	rep.Idle = idle
}

// idleConns is how many conns the idle table holds: cfg.idleConns, or
// fewer where RLIMIT_NOFILE (raised as far as this process may) holds
// fewer in a server or the client; the note says so.
func idleConns(cfg netConfig, servers []idleServer) (n int, note string) {
	limit, err := fdlimit.RaiseAll()
	if err != nil {
		return 0, "idle table not measured: RLIMIT_NOFILE: " + err.Error()
	}
	fds := 1
	for _, s := range servers {
		fds = max(fds, s.fdsPerConn)
	}
	room := (int(min(limit, 1<<30)) - netSpareFDs) / fds
	if room >= cfg.idleConns {
		return cfg.idleConns, ""
	}
	return max(room, 0), fmt.Sprintf("idle table: %d conns per server, not %d: RLIMIT_NOFILE's hard limit is %d here, which this process may not raise, and a conn takes a descriptor in the client and %d in the server.",
		max(room, 0), cfg.idleConns, limit, fds)
}

// memAnswer is a server's answer to SIGUSR2.
type memAnswer struct {
	heap, stacks float64
	timers       uint64
	p50, p99     time.Duration // of the lateness since the previous answer
	hasLateness  bool
	tickerP99    time.Duration // the control ticker's, over the same window
	hasTicker    bool
}

// parseMemAnswer reads "mem heap=N stacks=N ..." (echoanswer_unix.go); ok
// is false for any other line.
func parseMemAnswer(line string) (a memAnswer, ok bool, err error) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "mem" {
		return a, false, nil
	}
	kv := map[string]uint64{}
	for _, s := range f[1:] {
		k, v, found := strings.Cut(s, "=")
		n, perr := strconv.ParseUint(v, 10, 64)
		if !found || perr != nil {
			return a, true, fmt.Errorf("answer %q: %q is not key=number", line, s)
		}
		kv[k] = n
	}
	heap, hok := kv["heap"]
	stacks, sok := kv["stacks"]
	if !hok || !sok {
		return a, true, fmt.Errorf("answer %q: no heap= and stacks=", line)
	}
	a.heap, a.stacks = float64(heap), float64(stacks)
	if t, ok := kv["timers"]; ok {
		a.hasLateness, a.timers = true, t
		a.p50, a.p99 = time.Duration(kv["p50"]), time.Duration(kv["p99"])
	}
	if t, ok := kv["tickerp99"]; ok {
		a.hasTicker, a.tickerP99 = true, time.Duration(t)
	}
	return a, true, nil
}

// idleProc is an idle server's process; its "mem" lines answer SIGUSR2.
type idleProc struct {
	*runningServer
	memc chan memAnswer
	errc chan error
}

func (p *idleProc) takeMem(line string) bool {
	a, ok, err := parseMemAnswer(line)
	if !ok {
		return false
	}
	if err != nil {
		put(p.errc, err)
	} else {
		put(p.memc, a)
	}
	return true
}

// put sends v on a channel of one without waiting: a stale value is
// dropped by the next ask.
func put[T any](c chan T, v T) {
	select {
	case c <- v:
	default:
	}
}

// ask sends SIGUSR2 and waits for the answer.
func (p *idleProc) ask() (memAnswer, error) {
	select {
	case <-p.memc:
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return memAnswer{}, err
	}
	select {
	case a := <-p.memc:
		return a, nil
	case err := <-p.errc:
		return memAnswer{}, err
	case <-p.done:
		return memAnswer{}, fmt.Errorf("the server exited: %s", oneLine(p.out.String()))
	case <-time.After(idleAskTimeout):
		return memAnswer{}, fmt.Errorf("no answer to SIGUSR2 in %v", idleAskTimeout)
	}
}

// measureIdle measures server s holding n idle conns, repetition rep.
func measureIdle(cfg netConfig, s idleServer, n, rep int) NetIdleSample {
	smp := NetIdleSample{Rep: rep}
	p := &idleProc{memc: make(chan memAnswer, 1), errc: make(chan error, 1)}
	err := measureOn(cfg.benchRun, rep, s.label+", idle", func() (*idleProc, error) {
		srv, err := cfg.startServer(s.benchServer, probeEcho, "no echo", p.takeMem)
		p.runningServer = srv
		return p, err
	}, func(p *idleProc) { smp = idleCell(cfg, p, s, n, rep) })
	if err != nil {
		smp.Error = "start: " + err.Error()
	}
	line := "FAILED: " + oneLine(smp.Error)
	if smp.Error == "" {
		line = fmt.Sprintf("%.0f B heap+stacks/conn", smp.Heap+smp.Stacks)
		if smp.RSS != nil {
			line += fmt.Sprintf(", %.0f B RSS/conn", *smp.RSS)
		}
		if smp.LatenessP99ms != nil {
			line += fmt.Sprintf(", timer lateness p99 %.2f ms", *smp.LatenessP99ms)
		}
		if smp.TickerP99ms != nil {
			line += fmt.Sprintf(" (a Go ticker's %.2f ms)", *smp.TickerP99ms)
		}
	}
	cfg.repf(rep, "%s, %d idle conns: %s", s.label, n, line)
	return smp
}

// idleCell is measureIdle on the running server p.
func idleCell(cfg netConfig, p *idleProc, s idleServer, n, rep int) NetIdleSample {
	smp := NetIdleSample{Rep: rep}
	fail := func(err error) NetIdleSample {
		smp.Error = err.Error()
		return smp
	}
	pid := p.cmd.Process.Pid
	m0, err := p.ask()
	if err != nil {
		return fail(err)
	}
	// Without /proc (outside Linux) there is no resident set, and the
	// row says nothing of it.
	rss0, rssErr := procRSS(pid)
	cl, err := startIdleClient(cfg, p.addr, n)
	if err != nil {
		return fail(err)
	}
	defer cl.close()
	if _, err := cl.expect("connected", time.Minute+time.Duration(n)*time.Millisecond); err != nil {
		return fail(err)
	}
	m1, err := p.ask()
	if err != nil {
		return fail(err)
	}
	rss1, rssErr1 := procRSS(pid)
	per := float64(n)
	smp.Heap, smp.Stacks = (m1.heap-m0.heap)/per, (m1.stacks-m0.stacks)/per
	if rssErr == nil && rssErr1 == nil {
		rss := float64(rss1-rss0) / per
		smp.RSS = &rss
	}
	if err := cl.send("active"); err != nil {
		return fail(err)
	}
	time.Sleep(cfg.idleWindow)
	m2, err := p.ask()
	if err != nil {
		return fail(err)
	}
	if s.lateness {
		if !m2.hasLateness || m2.timers == 0 {
			return fail(errors.New("the server measured no timer lateness in the window"))
		}
		smp.Timers = m2.timers
		smp.LatenessP50ms, smp.LatenessP99ms = msOf(m2.p50), msOf(m2.p99)
		if m2.hasTicker {
			smp.TickerP99ms = msOf(m2.tickerP99)
		}
	}
	if err := cl.send("stop"); err != nil {
		return fail(err)
	}
	line, err := cl.expect("{", 30*time.Second)
	if err != nil {
		return fail(err)
	}
	var res netIdleResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return fail(fmt.Errorf("the client's result %q: %w", line, err))
	}
	if res.Error != "" {
		return fail(errors.New(res.Error))
	}
	smp.Active, smp.Lines = res.Active, res.Lines
	smp.LineP99ms = res.RTTp99us / 1e3
	return smp
}

func msOf(d time.Duration) *float64 {
	v := ms(d)
	return &v
}

// idleClient is a netidle process: its stdin takes commands, its stdout
// lines come through lines.
type idleClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	tail  *tailBuffer
	done  chan struct{}
}

func startIdleClient(cfg netConfig, addr string, n int) (*idleClient, error) {
	cmd := exec.Command(cfg.self, "netidle", "-addr", addr, "-conns", strconv.Itoa(n),
		"-active-every", strconv.Itoa(idleActiveEvery), "-interval", cfg.idleInterval.String())
	cmd.Env = append(os.Environ(), cfg.selfEnv...)
	c := &idleClient{cmd: cmd, lines: make(chan string, 16), tail: &tailBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.tail
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startChild(cmd, cfg.started); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// expect waits up to d for the client's next line, which must start
// with prefix, and returns it.
func (c *idleClient) expect(prefix string, d time.Duration) (string, error) {
	select {
	case l := <-c.lines:
		if !strings.HasPrefix(l, prefix) {
			return "", fmt.Errorf("the client said %q, want %s...: %s", l, prefix, oneLine(c.tail.String()))
		}
		return l, nil
	case <-c.done:
		return "", fmt.Errorf("the client exited: %s", oneLine(c.tail.String()))
	case <-time.After(d):
		return "", fmt.Errorf("no %q from the client in %v", prefix, d)
	}
}

func (c *idleClient) send(cmd string) error {
	_, err := io.WriteString(c.stdin, cmd+"\n")
	return err
}

// close ends the client: the end of its stdin makes it close its conns
// and exit; it is killed if it has not within serverStopTimeout.
func (c *idleClient) close() {
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(serverStopTimeout):
		c.cmd.Process.Kill()
		<-c.done
	}
}
