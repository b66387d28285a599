//go:build unix

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/fdlimit"
	"github.com/revoltgo/eventloop/socket"
)

// echoCmd serves TCP echo on ADDR until SIGINT or SIGTERM, on --loops
// loops (each on a goroutine of its own, with its own listener on ADDR
// through SO_REUSEPORT, so that the kernel spreads the connections): a
// fiber per connection, written as a blocking Go server is, or with
// --serve a Handler per connection (socket.Conn.Serve), which holds no
// fiber while its connection is idle. SIGUSR2 asks it for its memory and
// its timers' lateness (echoanswer_unix.go); --timer runs the timer whose
// lateness that is.
func echoCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	fs.SetOutput(stdout)
	driver := fs.String("driver", "", "driver (default: what eventloop.New picks)")
	loops := fs.Int("loops", runtime.NumCPU(), "loops, one goroutine and one listener each")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	serve := fs.Bool("serve", false, "serve each connection with a Handler (socket.Conn.Serve) instead of a fiber blocked in Read")
	bufSize := fs.Int("buf", echoBufSize, "the read buffer of each connection's fiber, in bytes (not with --serve: the served conns of a loop share one)")
	timer := fs.Duration("timer", 0, "run a Repeat timer every this long on each loop, whose lateness the loop's metrics record (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one address, such as 127.0.0.1:7007")
	}
	if *loops < 1 {
		return fmt.Errorf("--loops %d: want at least 1", *loops)
	}
	bufSet := false
	fs.Visit(func(f *flag.Flag) { bufSet = bufSet || f.Name == "buf" })
	switch {
	case *bufSize < 1:
		return fmt.Errorf("--buf %d: want at least 1 byte", *bufSize)
	case *serve && bufSet:
		return errors.New("--buf sizes a fiber's read buffer, and --serve runs no fiber per connection: one or the other")
	case *timer < 0:
		return fmt.Errorf("--timer %v: want a positive interval, or 0 for none", *timer)
	}
	// Thousands of idle connections (bench --net's idle table) need more
	// descriptors than the default soft limit; where it cannot be raised,
	// accept backs off by itself.
	fdlimit.RaiseAll()
	g, err := startEcho(*driver, fs.Arg(0), *loops, echoOptions{serve: *serve, bufSize: *bufSize, timer: *timer})
	if err != nil {
		return err
	}
	stdout = &lockedWriter{w: stdout}
	stopAnswers := answerSIGUSR2(g, stdout, *timer)
	defer stopAnswers()
	// The line goes out once every loop takes the signals (a watcher is
	// active from the tick after it is made): whoever reads it may stop
	// the server at once.
	var ready sync.WaitGroup
	for _, s := range g.servers {
		for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			if _, err := s.l.OnSignal(sig, func(core.CallbackID, os.Signal) { s.stop() }); err != nil {
				return errors.Join(err, g.close())
			}
		}
		ready.Add(1)
		s.l.Defer(func(core.CallbackID) { ready.Done() })
	}
	go func() {
		ready.Wait()
		fmt.Fprintf(stdout, "echo: listening on %s, driver %s; SIGINT or SIGTERM stops (%s)\n",
			g.servers[0].addr, g.servers[0].l.Driver().Name(), plural(len(g.servers), "loop"))
	}()
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return errors.Join(err, g.close())
		}
		defer stop()
	}
	err = g.run()
	g.report(stdout)
	return err
}

// report prints each loop's metrics once it has stopped (final values):
// how busy it was, how many events a tick carried, how late its timers ran
// and, with EVENTLOOP_DEBUG_SLOW set, its slowest callback.
func (g *echoGroup) report(w io.Writer) {
	for i, s := range g.servers {
		m := s.l.Metrics()
		u := m.UtilizationSince(core.Metrics{})
		fmt.Fprintf(w, "echo: loop %d: busy %.1f%% of %v, %d ticks, %.2f events a tick, %d callbacks",
			i, 100*u.Utilization, m.Running.Round(time.Millisecond), m.Ticks, m.EventsPerTick(), m.Callbacks)
		if m.TimerLateness.Count > 0 {
			fmt.Fprintf(w, ", timer lateness p50 %v p99 %v", m.TimerLateness.Quantile(0.5), m.TimerLateness.Quantile(0.99))
		}
		if m.Slowest.Took > 0 {
			fmt.Fprintf(w, ", slowest %s %v", m.Slowest.Kind, m.Slowest.Took)
		}
		fmt.Fprintln(w)
	}
}

// echoOptions are how an echo server serves, the same on each loop.
type echoOptions struct {
	serve   bool          // a Handler per connection (echoServed), not a fiber
	bufSize int           // a fiber's read buffer (0: echoBufSize)
	timer   time.Duration // a Repeat timer's interval, for the metrics (0: none)
}

// echoBufSize is a fiber's read buffer unless --buf says otherwise: ten
// thousand connections hold 160 MiB of them.
const echoBufSize = 16 << 10

// echoGroup is the servers of one echo command, a loop each.
type echoGroup struct{ servers []*echoServer }

// startEcho makes n loops on driver ("" as eventloop.New picks), each
// listening on addr; with n > 1 the listeners share the address (the port
// the first one got, if addr asks for any).
//
// SO_REUSEPORT would also let the listeners join another process serving
// addr: with n > 1 a port named in addr is first bound without it, so that
// a port in use fails as it does with one loop (EADDRINUSE).
func startEcho(driver, addr string, n int, opt echoOptions) (*echoGroup, error) {
	if n > 1 {
		if _, port, err := net.SplitHostPort(addr); err == nil && port != "0" {
			probe, err := net.Listen("tcp", addr)
			if err != nil {
				return nil, err
			}
			if err := probe.Close(); err != nil {
				return nil, err
			}
		}
	}
	g := &echoGroup{}
	for i := range n {
		var l *core.Loop
		var err error
		if driver == "" {
			l, err = eventloop.New()
		} else {
			l, err = eventloop.NewWithDriver(driver)
		}
		if err != nil {
			return nil, errors.Join(err, g.close())
		}
		if i > 0 {
			addr = g.servers[0].addr.String()
		}
		s, err := listenEcho(l, addr, n > 1, opt)
		if err != nil {
			return nil, errors.Join(err, l.Close(), g.close())
		}
		g.servers = append(g.servers, s)
	}
	return g, nil
}

// run runs every loop on a goroutine of its own until its server stops,
// then closes it: Close ends the connections' fibers (their Reads fail and
// each closes its socket).
func (g *echoGroup) run() error {
	errs := make([]error, len(g.servers))
	var wg sync.WaitGroup
	for i, s := range g.servers {
		wg.Go(func() {
			err := s.l.Run()
			errs[i] = errors.Join(err, s.l.Close())
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stop asks every server to stop, from any goroutine.
func (g *echoGroup) stop() {
	for _, s := range g.servers {
		_ = s.l.Post(s.stop)
	}
}

// close closes loops that never ran.
func (g *echoGroup) close() error {
	var errs []error
	for _, s := range g.servers {
		errs = append(errs, s.l.Close())
	}
	return errors.Join(errs...)
}

// echoServer is a listener served by a loop.
type echoServer struct {
	l        *core.Loop
	ln       *socket.Listener
	addr     net.Addr
	done     bool
	accepted int
	opt      echoOptions
}

// listenEcho listens on addr with l and accepts in a fiber; each
// connection is served in a fiber of its own, or by a Handler (opt.serve).
func listenEcho(l *core.Loop, addr string, reusePort bool, opt echoOptions) (*echoServer, error) {
	lc := socket.ListenConfig{ReusePort: reusePort}
	ln, err := lc.Listen(context.Background(), l, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if opt.bufSize == 0 {
		opt.bufSize = echoBufSize
	}
	s := &echoServer{l: l, ln: ln, addr: ln.Addr(), opt: opt}
	if opt.timer > 0 {
		// Unreferenced: it measures the loop and keeps no run going.
		l.Unreference(l.Repeat(opt.timer, func(core.CallbackID) {}))
	}
	l.Defer(func(core.CallbackID) { s.accept() })
	return s, nil
}

func (s *echoServer) accept() {
	for {
		c, err := s.ln.AcceptConn()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Temporary() && !s.done {
				continue // out of descriptors: the listener backs off by itself
			}
			return
		}
		s.accepted++
		if s.opt.serve {
			if err := c.Serve(echoServed); err != nil {
				c.Close()
			}
			continue
		}
		s.l.Defer(func(core.CallbackID) { serveEcho(c, s.opt.bufSize) })
	}
}

// stop stops accepting and makes Run return; it runs on the loop. The
// connections in progress end with the loop's Close.
func (s *echoServer) stop() {
	if s.done {
		return
	}
	s.done = true
	s.ln.Close()
	s.l.Stop()
}

// serveEcho writes back what it reads until the peer closes: blocking
// style, the fiber suspending whenever the socket would block.
func serveEcho(c *socket.Conn, bufSize int) {
	defer c.Close()
	buf := make([]byte, bufSize)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// echoServed is the echo of a served connection: it writes back what
// came and consumes it all. Its Write suspends it while the socket is
// full, and the conn is not read meanwhile. A Write that fails leaves the
// conn to its next read, which fails too and ends it.
func echoServed(c *socket.Conn, in []byte, err error) int {
	if err != nil {
		return 0
	}
	c.Write(in)
	return len(in)
}
