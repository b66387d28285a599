// Command netpeers serves TCP echo with one of the servers that the
// network benchmark (`eventloop bench --net`) sets beside ours:
//
//	stdlib      the standard library: net.Listen, one goroutine per connection
//	evio        github.com/tidwall/evio, one loop
//	evio-multi  evio with NumLoops -1 (one loop per CPU)
//	gnet        github.com/panjf2000/gnet/v2, one loop (multicore off)
//	gnet-multi  gnet, multicore (one loop per CPU)
//	nbio        github.com/lesismal/nbio, its defaults (a poller per CPU)
//
// Each runs with its library's defaults, as its README's echo example
// does; -buf sizes the standard library's read buffer per connection.
// On SIGUSR2 it prints one line to stdout, for the benchmark's idle
// table, as the command's own echo does:
//
//	mem heap=BYTES stacks=BYTES goroutines=N
//
// runtime.MemStats' HeapInuse and StackInuse after two collections. It
// raises its RLIMIT_NOFILE to the hard limit, for thousands of idle
// connections. The benchmark builds this program once and starts it as a process of
// its own per server, so that the CPU time the kernel accounts to that
// process is the server's alone. It lives in the module bench/ so that the
// library's go.mod does not require evio or gnet. By hand, from the
// repository root:
//
//	go -C bench run ./netpeers -server gnet -addr 127.0.0.1:7007
//
// It serves until SIGINT or SIGTERM, or until -max-life has passed, so that
// a benchmark that dies cannot leave it running for long.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/lesismal/nbio"
	"github.com/lesismal/nbio/logging"
	"github.com/panjf2000/gnet/v2"
	"github.com/revoltgo/eventloop/internal/fdlimit"
	"github.com/tidwall/evio"
)

// servers maps each -server name to what serves it.
var servers = map[string]func(addr string) error{
	"stdlib":     serveStdlib,
	"evio":       func(addr string) error { return serveEvio(addr, 1) },
	"evio-multi": func(addr string) error { return serveEvio(addr, -1) },
	"gnet":       func(addr string) error { return serveGnet(addr, false) },
	"gnet-multi": func(addr string) error { return serveGnet(addr, true) },
	"nbio":       serveNbio,
}

// stdlibBuf is -buf: the standard library's read buffer per connection.
var stdlibBuf = 4 << 10

func main() {
	name := flag.String("server", "", "stdlib, evio, evio-multi, gnet, gnet-multi or nbio")
	addr := flag.String("addr", "", "host:port to listen on, such as 127.0.0.1:7007")
	maxLife := flag.Duration("max-life", time.Hour, "exit by itself after this long")
	flag.IntVar(&stdlibBuf, "buf", stdlibBuf, "stdlib: the read buffer of each connection, in bytes")
	flag.Parse()
	serve, ok := servers[*name]
	if !ok || *addr == "" || flag.NArg() > 0 || stdlibBuf < 1 {
		fmt.Fprintln(os.Stderr, "usage: netpeers -server stdlib|evio|evio-multi|gnet|gnet-multi|nbio -addr HOST:PORT [-max-life D] [-buf BYTES]")
		os.Exit(2)
	}
	if _, err := fdlimit.RaiseAll(); err != nil {
		fmt.Fprintln(os.Stderr, "netpeers: RLIMIT_NOFILE:", err)
	}
	// The servers hold no state worth a graceful stop: exiting closes every
	// socket, which is all a stop would do.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR2)
	go func() {
		end := time.After(*maxLife)
		for {
			select {
			case s := <-sig:
				if s == syscall.SIGUSR2 {
					answerMem()
					continue
				}
				os.Exit(0)
			case <-end:
				fmt.Fprintf(os.Stderr, "netpeers: -max-life %v passed, exiting\n", *maxLife)
				os.Exit(3)
			}
		}
	}()
	if err := serve(*addr); err != nil {
		fmt.Fprintf(os.Stderr, "netpeers %s: %v\n", *name, err)
		os.Exit(1)
	}
}

// answerMem answers SIGUSR2 (see the package doc).
func answerMem() {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("mem heap=%d stacks=%d goroutines=%d\n", ms.HeapInuse, ms.StackInuse, runtime.NumGoroutine())
}

func listening(name string, a net.Addr) {
	fmt.Printf("netpeers: %s listening on %s\n", name, a)
}

// serveStdlib is the goroutine-per-connection echo. It reads and writes in
// a loop of its own rather than io.Copy(c, c): on Linux io.Copy between two
// TCP sockets takes the splice path, two syscalls through a pipe per
// message, which is not what a Go server's handler does with what it reads.
func serveStdlib(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	listening("stdlib", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			buf := make([]byte, stdlibBuf)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// serveEvio serves with evio; loops is its NumLoops (-1: one per CPU).
func serveEvio(addr string, loops int) error {
	var events evio.Events
	events.NumLoops = loops
	events.Serving = func(s evio.Server) evio.Action {
		listening(fmt.Sprintf("evio (%d loops)", s.NumLoops), s.Addrs[0])
		return evio.None
	}
	events.Data = func(c evio.Conn, in []byte) ([]byte, evio.Action) {
		return in, evio.None
	}
	return evio.Serve(events, "tcp://"+addr)
}

// gnetEcho writes back what it reads.
type gnetEcho struct {
	gnet.BuiltinEventEngine
	multicore bool
}

func (e *gnetEcho) OnBoot(eng gnet.Engine) gnet.Action {
	fmt.Printf("netpeers: gnet (multicore %v) serving\n", e.multicore)
	return gnet.None
}

func (e *gnetEcho) OnTraffic(c gnet.Conn) gnet.Action {
	buf, err := c.Next(-1)
	if err != nil {
		return gnet.Close
	}
	if _, err := c.Write(buf); err != nil {
		return gnet.Close
	}
	return gnet.None
}

// serveGnet serves with gnet, on one loop or, multicore, one per CPU.
func serveGnet(addr string, multicore bool) error {
	err := gnet.Run(&gnetEcho{multicore: multicore}, "tcp://"+addr, gnet.WithMulticore(multicore))
	if err == nil {
		err = errors.New("gnet.Run returned")
	}
	return err
}

// serveNbio serves with nbio's Engine, its defaults, the echo written from
// OnData (Write copies what the socket does not take at once).
func serveNbio(addr string) error {
	logging.SetLevel(logging.LevelNone)
	eng := nbio.NewEngine(nbio.Config{Network: "tcp", Addrs: []string{addr}})
	eng.OnData(func(c *nbio.Conn, data []byte) {
		if _, err := c.Write(data); err != nil {
			c.Close()
		}
	})
	if err := eng.Start(); err != nil {
		return err
	}
	fmt.Printf("netpeers: nbio (%d pollers) listening on %s\n", eng.NPoller, addr)
	select {} // until a signal ends the process
}
