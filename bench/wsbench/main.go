// Command wsbench measures WebSocket servers side by side in one run,
// each server in a process of its own (bench/wspeers, which it builds) and
// the client in another (wsbench itself, in a hidden mode), on Linux:
//
//	gorilla-nethttp     gorilla/websocket's Upgrader under net/http (the baseline)
//	nbio                lesismal/nbio's nbhttp.Engine and websocket Upgrader
//	gws                 lxzan/gws's Upgrader under net/http, ReadLoop in a goroutine per conn
//	gorilla-ours        gorilla's Upgrader on httpserver.Server, one loop
//	gorilla-ours-loops  the same on one loop per CPU, listeners shared with SO_REUSEPORT
//	ours                the project's package websocket on httpserver, one loop
//	ours-loops          the same on one loop per CPU
//
// Three measurements, in each repetition (-reps, 3 by default) for every
// server in turn, the order rotating by one server from one repetition to
// the next so that none is always first or last:
//
//   - Echo, a table per message size (-size, 64 and 4096 bytes) without
//     and with permessage-deflate (-compress off,on): -conns client conns
//     (128) each send a binary message and wait for its echo, in a closed
//     loop, for a -warmup (1 s) and then a -window (3 s). With compression
//     the client offers permessage-deflate (gorilla's offer: no context
//     takeover either way), every server is configured to accept it, and
//     a conn on which the server did not agree fails the run; each server
//     compresses what it sends as far as its own threshold goes (gws sends
//     a message under 512 bytes as it is). It reports the echoes per
//     second in the window (the median of the repetitions, and their
//     range), that against gorilla on net/http (the median of the
//     per-repetition ratios), the server's CPU time per echo (utime+stime
//     of /proc/<pid>/stat at the window's ends, all its threads, over the
//     echoes of the window), its heap allocations per echo
//     (runtime/metrics, which the server prints on SIGUSR1), and the
//     client's CPU per echo, since both share the machine's cores.
//   - Broadcast: -idle conns (10 000) are upgraded, then the server is
//     told (SIGHUP) to broadcast one 64-byte binary message to all of
//     them, -broadcasts times (20), each once the client has received
//     every frame of the one before. Every delivery is checked (each
//     message carries its broadcast's number; a conn's must come in
//     order) and a missing one fails the run. It reports, per broadcast,
//     the time the server measured and printed (the median over all the
//     broadcasts, and the slowest), and the server's CPU per broadcast
//     (utime+stime from before the first to after the last, the waits for
//     the client included, over the broadcasts). The clock starts once
//     the server has its list of conns (taking it is not counted) and
//     covers, for each server:
//     gorilla-nethttp: NewPreparedMessage, then WritePreparedMessage on
//     each conn in turn from one goroutine, each returning once its frame
//     is written to the socket: it stops when the last write returns;
//     nbio: WriteMessage on each conn in turn from one goroutine (nbio has
//     no prepared message: each call frames the message and writes it at
//     once, keeping for its poller what the socket does not take, which
//     the figure then misses; 64 bytes to a reading client are taken
//     whole): it stops when the last call returns;
//     gws: NewBroadcaster, Broadcast on each conn (which queues the frame,
//     encoded once, on the conn's write queue, whose goroutine gws starts
//     then and writes it) and Close, then the wait until the conns'
//     net.Conn has seen one Write return per conn (the listener wraps the
//     conns to count them, in this measurement only): it stops when the
//     last write returns;
//     gorilla-ours and gorilla-ours-loops: on each loop, in a callback
//     posted to it, NewPreparedMessage and WritePreparedMessage on that
//     loop's conns in turn (a write suspends the callback while its socket
//     is full);
//     ours and ours-loops: on each loop, in a callback posted to it,
//     websocket.Broadcast over that loop's conns (the frame encoded once,
//     queued on each conn, each conn's flush a microtask), then a
//     microtask queued behind those flushes, which stops the clock once no
//     flush waits on a full socket (the loop's live fibers back where they
//     were): the time from the start of the Broadcast call until every
//     conn's frame was handed to the kernel. With more than one loop the
//     time runs from the earliest loop's start to the latest loop's end;
//     the post's wake-up before the start is not in it. The project's
//     target is 20 ms for 10 000 conns.
//   - Idle: -idle conns (10 000) are upgraded and then left idle. It
//     reports the server's memory per conn: (VmRSS after − VmRSS before)/N
//     from /proc/<pid>/status, and Go memory in use per conn: live heap
//     objects plus goroutine stacks (/memory/classes/heap/objects:bytes +
//     /memory/classes/heap/stacks:bytes, after − before, over N), which the
//     server prints on SIGUSR2 after a runtime.GC(); both readings, before
//     and after, follow that GC.
//
// A fresh server process serves each measurement (and each echo table);
// only the broadcast's keeps its conns in a set. The client is gorilla's,
// one goroutine per conn; every echo is checked byte for byte (each
// message holds its conn's number and a sequence number). Client and
// servers raise RLIMIT_NOFILE to the hard limit. The output is markdown:
// the parameters, the load average before and after (/proc/loadavg: the
// other work the figures share the machine with), a table per
// measurement, and whether ours meets its targets (on the first echo
// table, echo ≥ 1.3× gorilla on net/http and ≥ nbio; idle RSS per conn ≤
// gorilla on net/http's; a broadcast to 10 000 conns in ≤ 20 ms). Progress
// goes to stderr.
//
// Run it from the repository root (it builds bench/wspeers with the go
// command, from the module bench/):
//
//	go -C bench run ./wsbench           # 3 repetitions, about 8 minutes
//	go -C bench run ./wsbench -quick    # 1 short repetition, 2000 conns for idle and broadcast, about 1 minute
//	go -C bench run ./wsbench -servers gorilla-nethttp,gorilla-ours -cpuprofile /tmp/prof
//
// With -cpuprofile DIR each echo server writes a CPU profile of its life
// to DIR/SERVER-echoSIZE-REP.pprof (echoSIZEz with compression) (`go tool pprof -top FILE`); with
// -memprofile DIR each idle server writes a heap profile, as of the GC
// that precedes the last reading, to DIR/SERVER-idle-REP.pprof (`go tool
// pprof -sample_index=inuse_space -top FILE`).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

// The servers, in the order of the tables; the first is the baseline.
var allServers = []string{"gorilla-nethttp", "nbio", "gws", "gorilla-ours", "gorilla-ours-loops", "ours", "ours-loops"}

const baseline = "gorilla-nethttp"

// labels are the servers' names in the tables.
var labels = map[string]string{
	"gorilla-nethttp":    "gorilla on net/http",
	"nbio":               "nbio (nbhttp)",
	"gws":                "gws on net/http",
	"gorilla-ours":       "gorilla on httpserver, 1 loop",
	"gorilla-ours-loops": "gorilla on httpserver, a loop per CPU",
	"ours":               "ours (package websocket), 1 loop",
	"ours-loops":         "ours (package websocket), a loop per CPU",
}

// echoCase is one echo table: a message size, with or without
// permessage-deflate.
type echoCase struct {
	size     int
	compress bool
}

func (c echoCase) String() string {
	if c.compress {
		return fmt.Sprintf("%d B, permessage-deflate", c.size)
	}
	return fmt.Sprintf("%d B", c.size)
}

type config struct {
	servers    []string
	reps       int
	conns      int
	cases      []echoCase
	size       int  // the client's: its case's
	compress   bool // the client's: its case's
	broadcasts int
	warmup     time.Duration
	window     time.Duration
	idle       int
	dialers    int
	loops      int
	profDir    string
	memDir     string
	peersBin   string
}

func main() {
	var cfg config
	clientMode := flag.String("client", "", "(internal) run as the client: echo or idle")
	addr := flag.String("addr", "", "(internal) the client's server")
	servers := flag.String("servers", strings.Join(allServers, ","), "the servers to measure, comma-separated")
	flag.IntVar(&cfg.reps, "reps", 3, "repetitions")
	flag.IntVar(&cfg.conns, "conns", 128, "echo: client conns, each a closed loop")
	sizes := flag.String("size", "64,4096", "echo: message sizes in bytes, comma-separated, a table each (the client: one size)")
	compress := flag.String("compress", "off,on", "echo: without (off) and with (on) permessage-deflate, comma-separated, a table each (the client: one)")
	flag.IntVar(&cfg.broadcasts, "broadcasts", 20, "broadcast: broadcasts of a 64-byte message to the -idle conns, one after the other (0: no broadcast measurement)")
	flag.DurationVar(&cfg.warmup, "warmup", time.Second, "echo: warm-up before the window")
	flag.DurationVar(&cfg.window, "window", 3*time.Second, "echo: the measured window")
	flag.IntVar(&cfg.idle, "idle", 10000, "idle: conns upgraded then left idle (0: no idle measurement)")
	flag.IntVar(&cfg.dialers, "dialers", 64, "conns dialed at a time")
	flag.IntVar(&cfg.loops, "loops", runtime.NumCPU(), "gorilla-ours-loops, ours-loops: the loops")
	flag.StringVar(&cfg.profDir, "cpuprofile", "", "write a CPU profile of each echo server to this directory")
	flag.StringVar(&cfg.memDir, "memprofile", "", "write a heap profile of each idle server, with its conns, to this directory")
	flag.StringVar(&cfg.peersBin, "peers", "", "a wspeers binary to use instead of building bench/wspeers")
	quick := flag.Bool("quick", false, "1 short repetition: 0.5 s warm-up, 1 s window, 2000 idle conns, 10 broadcasts (unless set)")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if cfg.cases, err = parseCases(*sizes, *compress); err != nil {
		fmt.Fprintln(os.Stderr, "wsbench:", err)
		os.Exit(2)
	}
	if *clientMode != "" {
		if len(cfg.cases) != 1 {
			fmt.Fprintln(os.Stderr, "wsbench: -client takes one -size and one -compress")
			os.Exit(2)
		}
		cfg.size, cfg.compress = cfg.cases[0].size, cfg.cases[0].compress
		if err := runClient(*clientMode, *addr, cfg); err != nil {
			tell("error %v", err)
			os.Exit(1)
		}
		return
	}
	if *quick {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["reps"] {
			cfg.reps = 1
		}
		if !set["warmup"] {
			cfg.warmup = 500 * time.Millisecond
		}
		if !set["window"] {
			cfg.window = time.Second
		}
		if !set["idle"] {
			cfg.idle = 2000
		}
		if !set["broadcasts"] {
			cfg.broadcasts = 10
		}
	}
	for s := range strings.SplitSeq(*servers, ",") {
		if _, ok := labels[s]; !ok {
			fmt.Fprintf(os.Stderr, "wsbench: -servers: unknown server %q (want some of %s)\n", s, strings.Join(allServers, ","))
			os.Exit(2)
		}
		cfg.servers = append(cfg.servers, s)
	}
	if cfg.reps < 1 || cfg.conns < 1 || cfg.window <= 0 || cfg.idle < 0 || cfg.broadcasts < 0 || cfg.dialers < 1 || cfg.loops < 1 {
		fmt.Fprintln(os.Stderr, "wsbench: -reps, -conns, -window, -dialers and -loops want positive values, -idle and -broadcasts non-negative ones")
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wsbench:", err)
		os.Exit(1)
	}
}

// echoResult is one echo measurement of one server.
type echoResult struct {
	rate       float64 // echoes per second in the window
	cpuPerMsg  float64 // server CPU seconds per echo
	cliPerMsg  float64 // client CPU seconds per echo
	objsPerMsg float64
	bytesPerMs float64
}

// idleResult is one idle measurement of one server.
type idleResult struct {
	rssPerConn, heapPerConn, stackPerConn float64
}

func run(cfg config, w io.Writer) error {
	began := time.Now()
	if _, err := fdlimit.RaiseAll(); err != nil {
		fmt.Fprintln(os.Stderr, "wsbench: RLIMIT_NOFILE:", err)
	}
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	// A conn takes a descriptor in the client and one in the server, each
	// a process of its own; the rest are the processes' own.
	if n := int(min(lim.Cur, 1<<30)) - 256; cfg.idle > n {
		fmt.Fprintf(os.Stderr, "wsbench: RLIMIT_NOFILE is %d: %d idle conns instead of %d\n", lim.Cur, max(n, 0), cfg.idle)
		cfg.idle = max(n, 0)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "wsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.peersBin
	if bin == "" {
		bin = filepath.Join(tmp, "wspeers")
		fmt.Fprintln(os.Stderr, "building bench/wspeers")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/revoltgo/eventloop/bench/wspeers")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building bench/wspeers (run wsbench from the module bench/, as `go -C bench run ./wsbench`, or give -peers): %v: %s", err, out)
		}
	}
	for _, dir := range []*string{&cfg.profDir, &cfg.memDir} {
		if *dir != "" {
			if *dir, err = filepath.Abs(*dir); err != nil {
				return err
			}
			if err := os.MkdirAll(*dir, 0o755); err != nil {
				return err
			}
		}
	}
	loadBefore := loadavg()
	echoes := make([]map[string][]echoResult, len(cfg.cases))
	for i := range echoes {
		echoes[i] = map[string][]echoResult{}
	}
	idles := map[string][]idleResult{}
	bcasts := map[string][]broadcastResult{}
	infos := map[string]string{}
	n := len(cfg.servers)
	for rep := range cfg.reps {
		for i := range n {
			name := cfg.servers[(rep+i)%n]
			for ci, ec := range cfg.cases {
				r, info, err := measureEcho(cfg, bin, self, name, ec, rep)
				if err != nil {
					return fmt.Errorf("echo %v, %s, repetition %d: %w", ec, name, rep+1, err)
				}
				infos[name] = info
				echoes[ci][name] = append(echoes[ci][name], r)
				fmt.Fprintf(os.Stderr, "rep %d/%d %-18s echo %v: %8.0f msgs/s, server %.2f µs CPU/msg, %.1f allocs/msg, client %.2f µs CPU/msg\n",
					rep+1, cfg.reps, name, ec, r.rate, r.cpuPerMsg*1e6, r.objsPerMsg, r.cliPerMsg*1e6)
			}
			if cfg.idle == 0 {
				continue
			}
			if cfg.broadcasts > 0 {
				br, err := measureBroadcast(cfg, bin, self, name)
				if err != nil {
					return fmt.Errorf("broadcast, %s, repetition %d: %w", name, rep+1, err)
				}
				bcasts[name] = append(bcasts[name], br)
				fmt.Fprintf(os.Stderr, "rep %d/%d %-18s broadcast: %.2f ms median, %.2f ms max, server %.2f ms CPU/broadcast\n",
					rep+1, cfg.reps, name, 1e3*median(br.took), 1e3*slices.Max(br.took), 1e3*br.cpuPer)
			}
			ir, err := measureIdle(cfg, bin, self, name, rep)
			if err != nil {
				return fmt.Errorf("idle, %s, repetition %d: %w", name, rep+1, err)
			}
			idles[name] = append(idles[name], ir)
			fmt.Fprintf(os.Stderr, "rep %d/%d %-18s idle: %8.0f B RSS/conn, %.0f B heap+stacks/conn\n",
				rep+1, cfg.reps, name, ir.rssPerConn, ir.heapPerConn)
		}
	}
	loadAfter := loadavg()
	report(w, cfg, lim, infos, echoes, idles, bcasts, loadBefore, loadAfter, time.Since(began))
	return nil
}

// measureEcho runs the echo measurement of server name for one case.
func measureEcho(cfg config, bin, self, name string, ec echoCase, rep int) (echoResult, string, error) {
	args := []string{"-loops", strconv.Itoa(cfg.loops)}
	if ec.compress {
		args = append(args, "-compress")
	}
	if cfg.profDir != "" {
		z := ""
		if ec.compress {
			z = "z"
		}
		args = append(args, "-cpuprofile", filepath.Join(cfg.profDir, fmt.Sprintf("%s-echo%d%s-%d.pprof", name, ec.size, z, rep+1)))
	}
	cfg.size, cfg.compress = ec.size, ec.compress
	srv, err := startServer(bin, name, args...)
	if err != nil {
		return echoResult{}, "", err
	}
	defer srv.stop()
	cl, err := startClient(self, "echo", srv.addr, cfg)
	if err != nil {
		return echoResult{}, "", err
	}
	defer cl.stop()
	if _, err := cl.expect("connected", time.Minute); err != nil {
		return echoResult{}, "", err
	}
	if err := cl.send("start"); err != nil {
		return echoResult{}, "", err
	}
	time.Sleep(cfg.warmup)
	type mark struct {
		t              time.Time
		count          int64
		srvCPU, cliCPU int64
		allocs         [2]uint64
	}
	take := func() (m mark, err error) {
		if m.allocs, err = srv.ask(syscall.SIGUSR1, srv.allocc); err != nil {
			return m, err
		}
		if m.srvCPU, err = procCPUTicks(srv.cmd.Process.Pid); err != nil {
			return m, err
		}
		if m.cliCPU, err = procCPUTicks(cl.cmd.Process.Pid); err != nil {
			return m, err
		}
		m.t = time.Now()
		if err := cl.send("count"); err != nil {
			return m, err
		}
		line, err := cl.expect("count", 5*time.Second)
		if err != nil {
			return m, err
		}
		m.count, err = strconv.ParseInt(line, 10, 64)
		return m, err
	}
	m0, err := take()
	if err != nil {
		return echoResult{}, "", err
	}
	time.Sleep(cfg.window)
	m1, err := take()
	if err != nil {
		return echoResult{}, "", err
	}
	if err := cl.send("stop"); err != nil {
		return echoResult{}, "", err
	}
	if _, err := cl.expect("done", 10*time.Second); err != nil {
		return echoResult{}, "", err
	}
	if err := cl.wait(10 * time.Second); err != nil {
		return echoResult{}, "", err
	}
	msgs := float64(m1.count - m0.count)
	if msgs <= 0 {
		return echoResult{}, "", errors.New("no echo in the window")
	}
	return echoResult{
		rate:       msgs / m1.t.Sub(m0.t).Seconds(),
		cpuPerMsg:  float64(m1.srvCPU-m0.srvCPU) / clockTicksPerSecond / msgs,
		cliPerMsg:  float64(m1.cliCPU-m0.cliCPU) / clockTicksPerSecond / msgs,
		objsPerMsg: float64(m1.allocs[0]-m0.allocs[0]) / msgs,
		bytesPerMs: float64(m1.allocs[1]-m0.allocs[1]) / msgs,
	}, srv.getInfo(), nil
}

// measureIdle runs the idle measurement of server name.
func measureIdle(cfg config, bin, self, name string, rep int) (idleResult, error) {
	args := []string{"-loops", strconv.Itoa(cfg.loops)}
	if cfg.memDir != "" {
		// Written at each reading: the last, with the conns, stays.
		args = append(args, "-memprofile", filepath.Join(cfg.memDir, fmt.Sprintf("%s-idle-%d.pprof", name, rep+1)))
	}
	srv, err := startServer(bin, name, args...)
	if err != nil {
		return idleResult{}, err
	}
	defer srv.stop()
	pid := srv.cmd.Process.Pid
	heap0, err := srv.ask(syscall.SIGUSR2, srv.heapc)
	if err != nil {
		return idleResult{}, err
	}
	rss0, err := procRSS(pid)
	if err != nil {
		return idleResult{}, err
	}
	cfg.conns = cfg.idle
	cl, err := startClient(self, "idle", srv.addr, cfg)
	if err != nil {
		return idleResult{}, err
	}
	defer cl.stop()
	line, err := cl.expect("connected", 2*time.Minute)
	if err != nil {
		return idleResult{}, err
	}
	if line != strconv.Itoa(cfg.idle) {
		return idleResult{}, fmt.Errorf("client connected %s conns, want %d", line, cfg.idle)
	}
	heap1, err := srv.ask(syscall.SIGUSR2, srv.heapc)
	if err != nil {
		return idleResult{}, err
	}
	rss1, err := procRSS(pid)
	if err != nil {
		return idleResult{}, err
	}
	// The server goes first: its end closes the conns from its side, so
	// the client's ports are not left in TIME_WAIT.
	if err := srv.stop(); err != nil {
		return idleResult{}, err
	}
	cl.send("stop")
	n := float64(cfg.idle)
	return idleResult{
		rssPerConn:   float64(rss1-rss0) / n,
		heapPerConn:  (float64(heap1[0]+heap1[1]) - float64(heap0[0]+heap0[1])) / n,
		stackPerConn: (float64(heap1[1]) - float64(heap0[1])) / n,
	}, nil
}

// server is a wspeers process.
type server struct {
	name   string
	cmd    *exec.Cmd
	addr   string
	tail   *tailBuffer
	allocc chan [2]uint64 // the answers to SIGUSR1
	heapc  chan [2]uint64 // the answers to SIGUSR2
	bcastc chan [2]uint64 // the answers to SIGHUP: conns, nanoseconds
	connsc chan [2]uint64 // the answers to SIGWINCH: conns in the broadcast's set
	errc   chan string    // "broadcast-error" lines
	done   chan struct{}  // closed once the process is reaped
	mu     sync.Mutex
	info   string
	once   sync.Once
	err    error
}

// startServer starts wspeers -server name on a free loopback port and
// waits until it echoes. The port is the kernel's pick for a socket bound
// and closed at once, so another process may take it meanwhile: a server
// that exits before it serves is tried again on a new port, three times in
// all.
func startServer(bin, name string, args ...string) (*server, error) {
	var err error
	for range 3 {
		var s *server
		s, err = startServerOnce(bin, name, args...)
		if err == nil || s == nil {
			return s, err
		}
		s.stop()
		if !s.exited() {
			break // running but not serving: trying again would not help
		}
	}
	return nil, err
}

func startServerOnce(bin, name string, args ...string) (*server, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, addr: addr, tail: &tailBuffer{}, allocc: make(chan [2]uint64, 1),
		heapc: make(chan [2]uint64, 1), bcastc: make(chan [2]uint64, 1), connsc: make(chan [2]uint64, 1),
		errc: make(chan string, 1), done: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"-server", name, "-addr", addr}, args...)...)
	s.cmd.Stderr = s.tail
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			var a [2]uint64
			switch {
			case scan(line, "allocs %d %d", &a[0], &a[1]):
				put(s.allocc, a)
			case scan(line, "heap %d %d", &a[0], &a[1]):
				put(s.heapc, a)
			case scan(line, "broadcast %d %d", &a[0], &a[1]):
				put(s.bcastc, a)
			case scan(line, "conns %d", &a[0]):
				put(s.connsc, a)
			case strings.HasPrefix(line, "broadcast-error "):
				select {
				case s.errc <- line:
				default:
				}
			case strings.HasPrefix(line, "info "):
				s.mu.Lock()
				s.info = strings.TrimPrefix(line, "info ")
				s.mu.Unlock()
			default:
				fmt.Fprintln(s.tail, line)
			}
		}
		s.cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := probe(addr)
		if err == nil {
			return s, nil
		}
		if s.exited() || time.Now().After(deadline) {
			return s, fmt.Errorf("%s on %s does not echo: %v; its output: %s", name, addr, err, s.tail)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func scan(line, format string, args ...any) bool {
	_, err := fmt.Sscanf(line, format, args...)
	return err == nil
}

// put replaces what c holds with a.
func put(c chan [2]uint64, a [2]uint64) {
	select {
	case <-c:
	default:
	}
	c <- a
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *server) getInfo() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// ask sends sig to the server and waits for its answer on c.
func (s *server) ask(sig syscall.Signal, c chan [2]uint64) ([2]uint64, error) {
	select {
	case <-c: // a stale answer
	default:
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		return [2]uint64{}, err
	}
	select {
	case a := <-c:
		return a, nil
	case e := <-s.errc:
		return [2]uint64{}, fmt.Errorf("%s: %s", s.name, e)
	case <-s.done:
		return [2]uint64{}, fmt.Errorf("%s exited; its output: %s", s.name, s.tail)
	case <-time.After(10 * time.Second):
		return [2]uint64{}, fmt.Errorf("%s: no answer to %v", s.name, sig)
	}
}

// stop ends the server (SIGTERM, then SIGKILL after 5 s) and reaps it; an
// exit before it was asked to is an error.
func (s *server) stop() error {
	s.once.Do(func() {
		if s.exited() {
			s.err = fmt.Errorf("%s exited: %v; its output: %s", s.name, s.cmd.ProcessState, s.tail)
			return
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s.err
}

// client is a wsbench -client process.
type client struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	tail  *tailBuffer
	lines chan string   // its stdout, but for "error" lines
	errc  chan string   // its "error" lines
	done  chan struct{} // closed once the process is reaped
	once  sync.Once
}

func startClient(self, mode, addr string, cfg config) (*client, error) {
	c := &client{tail: &tailBuffer{}, lines: make(chan string, 16), errc: make(chan string, 16), done: make(chan struct{})}
	compress := "off"
	if cfg.compress {
		compress = "on"
	}
	c.cmd = exec.Command(self, "-client", mode, "-addr", addr, "-conns", strconv.Itoa(cfg.conns),
		"-size", strconv.Itoa(cfg.size), "-compress", compress, "-dialers", strconv.Itoa(cfg.dialers))
	c.cmd.Stderr = c.tail
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "error ") {
				select {
				case c.errc <- line:
				default:
				}
				continue
			}
			c.lines <- line
		}
		c.cmd.Wait()
		close(c.lines)
		close(c.done)
	}()
	return c, nil
}

func (c *client) send(cmd string) error {
	_, err := io.WriteString(c.stdin, cmd+"\n")
	return err
}

// expect waits for the client's next line, which must start with word,
// and returns the rest; any "error" line, or an exit, fails it.
func (c *client) expect(word string, timeout time.Duration) (string, error) {
	select {
	case line, ok := <-c.lines:
		if !ok {
			<-c.done
			return "", fmt.Errorf("client exited (%v): %s", c.cmd.ProcessState, c.tail)
		}
		rest, ok := strings.CutPrefix(line, word+" ")
		if !ok {
			return "", fmt.Errorf("client: %q, want %q", line, word)
		}
		return rest, nil
	case e := <-c.errc:
		return "", fmt.Errorf("client: %s", e)
	case <-c.done:
		return "", fmt.Errorf("client exited (%v): %s", c.cmd.ProcessState, c.tail)
	case <-time.After(timeout):
		return "", fmt.Errorf("client: no %q in %v", word, timeout)
	}
}

// wait waits for the client to exit, successfully.
func (c *client) wait(timeout time.Duration) error {
	select {
	case <-c.done:
	case <-time.After(timeout):
		return errors.New("client: does not exit")
	}
	select {
	case e := <-c.errc:
		return fmt.Errorf("client: %s", e)
	default:
	}
	if !c.cmd.ProcessState.Success() {
		return fmt.Errorf("client: %v: %s", c.cmd.ProcessState, c.tail)
	}
	return nil
}

// stop ends the client if it still runs, and reaps it.
func (c *client) stop() {
	c.once.Do(func() {
		c.stdin.Close()
		go func() {
			for range c.lines { // drain, so the reader can reach Wait
			}
		}()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	})
}

// tailBuffer keeps the last 2 KiB written to it: a process's output, for
// the errors.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = slices.Clone(t.b[len(t.b)-2048:])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// freeLoopbackAddr is a loopback address on a port free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// clockTicksPerSecond is the unit of the times in /proc/<pid>/stat
// (USER_HZ, 100 on every architecture Go supports; cmd/eventloop's
// procstat.go says why it is a constant).
const clockTicksPerSecond = 100

// procCPUTicks is the CPU time process pid has used so far, user plus
// system, summed over its threads, in clock ticks: fields 14 and 15 of
// /proc/<pid>/stat, counted after the last ')' (the command name may hold
// spaces and parentheses).
func procCPUTicks(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	line := string(b)
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no ')'")
	}
	f := strings.Fields(line[i+1:]) // from field 3
	if len(f) < 13 {
		return 0, errors.New("/proc stat: too few fields")
	}
	u, err := strconv.ParseInt(f[14-3], 10, 64)
	if err != nil {
		return 0, err
	}
	s, err := strconv.ParseInt(f[15-3], 10, 64)
	return u + s, err
}

// procRSS is VmRSS of /proc/<pid>/status, in bytes.
func procRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) != 2 || f[1] != "kB" {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("/proc status: no VmRSS in kB")
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
