// Command wspeers is the WebSocket echo servers that bench/wsbench
// measures side by side, one per mode, each echoing every message back
// with its type:
//
//	gorilla-nethttp     github.com/gorilla/websocket's Upgrader under net/http's http.Serve:
//	                    a goroutine per conn, whose read loop writes the echo
//	nbio                github.com/lesismal/nbio's nbhttp.Engine and its websocket Upgrader:
//	                    pollers on epoll, the echo written by the OnMessage callback
//	gws                 github.com/lxzan/gws's Upgrader under net/http, as its README has
//	                    it: ReadLoop in a goroutine per conn, the echo written by the
//	                    OnMessage event handler, ParallelEnabled off
//	gorilla-ours        gorilla's Upgrader on httpserver.Server with one loop: the handler,
//	                    in its conn's fiber, reads a message then writes it back
//	gorilla-ours-loops  the same with -loops loops (default: one per CPU), each on a
//	                    goroutine of its own with its own listener on the address
//	                    through SO_REUSEPORT, and one Server over all
//	ours                the project's own package websocket on httpserver with one
//	                    loop: an idle conn holds no fiber, and OnMessage queues the echo
//	ours-loops          the same on -loops loops, as gorilla-ours-loops
//
// The two gorilla-ours modes use the handler of gorilla-nethttp,
// unchanged, with the same Upgrader (gorilla's defaults): one fiber per
// conn doing all its reads and writes in turn, which interop/doc.go says
// is safe on the loop. Each library runs with its defaults, but for
// -compress, which makes every server accept permessage-deflate (gorilla:
// Upgrader.EnableCompression; nbio: Upgrader.EnableCompression; gws:
// PermessageDeflate.Enabled; ours: Options.Compression) and compress what
// it sends on a conn that negotiated it, as far as its own threshold goes
// (gws compresses no message under 512 bytes).
//
// With -broadcast the server keeps its conns in a set and, on SIGHUP,
// sends one 64-byte binary message to all of them (its first 8 bytes
// count the broadcasts, little-endian, from 1) the way its library does a
// broadcast, then prints "broadcast CONNS NANOSECONDS": the conns that
// took it, and the time from the start of the broadcast until every
// conn's frame was handed to the kernel, as far as the library lets one
// see it (bench/wsbench's package doc says what each figure includes; the
// code is in broadcast.go). The conn set costs nothing in the other
// measurements, which run without -broadcast.
//
// The protocol of bench/httppeers, plus one line: on SIGUSR1 it prints
// "allocs OBJECTS BYTES" to stdout, the heap allocations of the process so
// far (runtime/metrics /gc/heap/allocs:objects and :bytes); on SIGUSR2 it
// runs runtime.GC() and then prints "heap OBJECTS STACKS", the bytes of
// live heap objects and of goroutine stacks (/memory/classes/heap/objects:bytes
// and /memory/classes/heap/stacks:bytes; a fiber is a goroutine, so its
// stack is counted there too). It prints "info ..." once serving (the
// driver and the loops of ours). It raises its RLIMIT_NOFILE to the hard
// limit, and serves until SIGINT or SIGTERM, or until -max-life has
// passed; -cpuprofile FILE profiles its whole life, and -memprofile FILE
// makes each SIGUSR2 write a heap profile there too, after the GC (`go tool
// pprof -sample_index=inuse_space`). By hand, from the
// repository root:
//
//	go -C bench run ./wspeers -server gorilla-ours -addr 127.0.0.1:8080
//
// It lives in the module bench/ so that the library's go.mod requires
// neither gorilla/websocket, nbio nor gws.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	gorilla "github.com/gorilla/websocket"
	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"
	nbws "github.com/lesismal/nbio/nbhttp/websocket"
	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/fdlimit"
	"github.com/revoltgo/eventloop/socket"
	"github.com/revoltgo/eventloop/websocket"
)

// params are a server's flags.
type params struct {
	addr      string
	loops     int
	compress  bool // -compress
	broadcast bool // -broadcast
}

// upgrader is gorilla's, with its defaults (but for -compress), for the
// three gorilla modes.
var upgrader gorilla.Upgrader

// gorillaJoined, with -broadcast, puts an upgraded gorilla conn in the
// broadcast's set and returns what takes it out.
var gorillaJoined func(r *http.Request, c *gorilla.Conn) (left func())

// gorillaEcho is the handler of the gorilla modes: upgrade, then read a
// message and write it back until the conn fails or closes. On net/http
// it runs in the conn's goroutine; on httpserver, in the conn's fiber.
func gorillaEcho(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	defer c.Close()
	if gorillaJoined != nil {
		defer gorillaJoined(r, c)()
	}
	for {
		typ, p, err := c.ReadMessage()
		if err != nil {
			return
		}
		if err := c.WriteMessage(typ, p); err != nil {
			return
		}
	}
}

// out serializes the lines on stdout.
var out sync.Mutex

func say(format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Printf(format+"\n", args...)
}

var servers = map[string]func(p params) error{
	"gorilla-nethttp": func(p params) error {
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			return err
		}
		if p.broadcast {
			gorillaJoined = gorillaBroadcast(false)
		}
		say("info net/http, GOMAXPROCS %d", runtime.GOMAXPROCS(0))
		return http.Serve(ln, http.HandlerFunc(gorillaEcho))
	},
	"nbio": serveNbio,
	"gws":  serveGws,
	"gorilla-ours": func(p params) error {
		p.loops = 1
		return serveOurs(p, http.HandlerFunc(gorillaEcho))
	},
	"gorilla-ours-loops": func(p params) error { return serveOurs(p, http.HandlerFunc(gorillaEcho)) },
	"ours": func(p params) error {
		p.loops = 1
		return serveOurs(p, nativeEcho(p))
	},
	"ours-loops": func(p params) error { return serveOurs(p, nativeEcho(p)) },
}

// serveNbio is nbio's nbhttp.Engine with its websocket Upgrader, the echo
// written from OnMessage.
func serveNbio(p params) error {
	logging.SetLevel(logging.LevelError)
	u := nbws.NewUpgrader()
	u.EnableCompression(p.compress)
	u.OnMessage(func(c *nbws.Conn, typ nbws.MessageType, data []byte) {
		if err := c.WriteMessage(typ, data); err != nil {
			c.Close()
		}
	})
	if p.broadcast {
		joined, left := nbioBroadcast()
		u.OnOpen(joined)
		u.OnClose(func(c *nbws.Conn, _ error) { left(c) })
	}
	engine := nbhttp.NewEngine(nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{p.addr},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u.Upgrade(w, r, nil) // nbio answers a failed upgrade itself
		}),
	})
	if err := engine.Start(); err != nil {
		return err
	}
	say("info nbhttp, GOMAXPROCS %d", runtime.GOMAXPROCS(0))
	select {} // until a signal or -max-life ends the process
}

// nativeEcho is package websocket's Server with its defaults (but for
// -compress), echoing each message with its type from OnMessage (the
// write is queued).
func nativeEcho(p params) *websocket.Server {
	srv := &websocket.Server{Options: websocket.Options{
		OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
			c.WriteMessage(typ, p)
		},
		Compression: p.compress,
	}}
	if p.broadcast {
		joined, left := oursBroadcast()
		srv.OnOpen = joined
		srv.OnClose = func(c *websocket.Conn, _ *websocket.CloseError) { left(c) }
	}
	return srv
}

// serveOurs serves h with httpserver on p.loops loops; with more than one
// each loop has a listener of its own on addr (SO_REUSEPORT), as the
// project's `eventloop httpserve --loops N` does.
func serveOurs(p params, h http.Handler) error {
	if _, ok := h.(*websocket.Server); p.broadcast && !ok {
		gorillaJoined = gorillaBroadcast(true)
	}
	srv := &httpserver.Server{Handler: h}
	n, addr := p.loops, p.addr
	var ls []*core.Loop
	for i := range n {
		l, err := eventloop.New()
		if err != nil {
			return err
		}
		ls = append(ls, l)
		lc := socket.ListenConfig{ReusePort: n > 1}
		ln, err := lc.Listen(context.Background(), l, "tcp", addr)
		if err != nil {
			return err
		}
		if i == 0 {
			addr = ln.Addr().String() // the port, if addr asked for any
		}
		if n == 1 {
			say("info driver %s, 1 loop", l.Driver().Name())
			return srv.Serve(l, ln) // runs the loop until the process ends
		}
		l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })
	}
	say("info driver %s, %d loops (SO_REUSEPORT)", ls[0].Driver().Name(), n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Go(func() { errs[i] = l.Run() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

const usage = "usage: wspeers -server gorilla-nethttp|nbio|gws|gorilla-ours|gorilla-ours-loops|ours|ours-loops -addr HOST:PORT [-loops N] [-compress] [-broadcast] [-max-life D] [-cpuprofile FILE] [-memprofile FILE]"

// memprofile is -memprofile.
var memprofile string

func main() {
	var p params
	name := flag.String("server", "", "gorilla-nethttp, nbio, gws, gorilla-ours, gorilla-ours-loops, ours or ours-loops")
	flag.StringVar(&p.addr, "addr", "", "host:port to listen on, such as 127.0.0.1:8080")
	flag.IntVar(&p.loops, "loops", runtime.NumCPU(), "gorilla-ours-loops, ours-loops: the loops")
	flag.BoolVar(&p.compress, "compress", false, "accept permessage-deflate and compress what is sent on a conn that negotiated it")
	flag.BoolVar(&p.broadcast, "broadcast", false, "keep the conns in a set; on SIGHUP broadcast a 64-byte message to all")
	maxLife := flag.Duration("max-life", time.Hour, "exit by itself after this long")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the process's life to this file")
	flag.StringVar(&memprofile, "memprofile", "", "on SIGUSR2, after the GC, write a heap profile to this file")
	flag.Parse()
	serve, ok := servers[*name]
	if !ok || p.addr == "" || p.loops < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if _, err := fdlimit.RaiseAll(); err != nil {
		fmt.Fprintln(os.Stderr, "wspeers: RLIMIT_NOFILE:", err)
	}
	stopProfile := func() {}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "wspeers: -cpuprofile:", err)
			os.Exit(1)
		}
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
	go answerSignals(*maxLife, stopProfile)
	upgrader.EnableCompression = p.compress
	if err := serve(p); err != nil {
		stopProfile()
		fmt.Fprintln(os.Stderr, "wspeers:", err)
		os.Exit(1)
	}
}

// answerSignals answers SIGUSR1, SIGUSR2, SIGHUP and SIGWINCH (see the
// package doc)
// and ends the process on SIGINT, SIGTERM or -max-life.
func answerSignals(maxLife time.Duration, stopProfile func()) {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP, syscall.SIGWINCH)
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	end := time.After(maxLife)
	for {
		select {
		case s := <-sig:
			switch s {
			case syscall.SIGUSR1:
				metrics.Read(allocs)
				say("allocs %d %d", allocs[0].Value.Uint64(), allocs[1].Value.Uint64())
				continue
			case syscall.SIGUSR2:
				runtime.GC()
				metrics.Read(heap)
				if memprofile != "" {
					if err := writeHeapProfile(memprofile); err != nil {
						fmt.Fprintln(os.Stderr, "wspeers: -memprofile:", err)
					}
				}
				say("heap %d %d", heap[0].Value.Uint64(), heap[1].Value.Uint64())
				continue
			case syscall.SIGHUP:
				broadcastNext()
				continue
			case syscall.SIGWINCH:
				countConns()
				continue
			}
		case <-end:
			fmt.Fprintln(os.Stderr, "wspeers: -max-life reached")
		}
		stopProfile()
		os.Exit(0)
	}
}

// writeHeapProfile writes the heap profile to path, as of the last GC.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
}
