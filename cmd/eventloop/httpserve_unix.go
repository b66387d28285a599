//go:build unix

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/metrics"
	"sync"
	"syscall"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// httpServeCmd is the server of `bench --http` (hidden): package
// httpserver serving the 13-byte "Hello, World!" on ADDR with --loops
// loops, each on a goroutine of its own with its own listener on ADDR
// through SO_REUSEPORT, so that the kernel spreads the connections, and
// one Server over all; with --dir DIR, http.FileServer(http.Dir(DIR))
// instead (the static-file tables). SIGINT or SIGTERM closes it; SIGUSR1
// prints the process's allocations so far, "allocs OBJECTS BYTES", as the
// peers of bench/httppeers do.
func httpServeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("httpserve", flag.ContinueOnError)
	driver := fs.String("driver", "", "driver (default: what eventloop.New picks)")
	loops := fs.Int("loops", 1, "loops, one goroutine and one listener each")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	dir := fs.String("dir", "", "serve http.FileServer(http.Dir(DIR)) instead of \"Hello, World!\"")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one address, such as 127.0.0.1:8080")
	}
	if *loops < 1 {
		return fmt.Errorf("--loops %d: want at least 1", *loops)
	}
	var handler http.Handler = http.HandlerFunc(helloHandler)
	if *dir != "" {
		if fi, err := os.Stat(*dir); err != nil {
			return fmt.Errorf("--dir: %w", err)
		} else if !fi.IsDir() {
			return fmt.Errorf("--dir %s: not a directory", *dir)
		}
		handler = http.FileServer(http.Dir(*dir))
	}
	srv := &httpserver.Server{Handler: handler}
	addr := fs.Arg(0)
	var ls []*core.Loop
	var lns []*socket.Listener
	closeAll := func() error {
		var errs []error
		for _, l := range ls {
			errs = append(errs, l.Close())
		}
		return errors.Join(errs...)
	}
	for i := range *loops {
		var l *core.Loop
		var err error
		if *driver == "" {
			l, err = eventloop.New()
		} else {
			l, err = eventloop.NewWithDriver(*driver)
		}
		if err != nil {
			return errors.Join(err, closeAll())
		}
		ls = append(ls, l)
		if i > 0 {
			addr = lns[0].Addr().String()
		}
		lc := socket.ListenConfig{ReusePort: *loops > 1}
		ln, err := lc.Listen(context.Background(), l, "tcp", addr)
		if err != nil {
			return errors.Join(err, closeAll())
		}
		lns = append(lns, ln)
		l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return errors.Join(err, closeAll())
		}
		defer stop()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1)
	defer signal.Stop(sig)
	var out sync.Mutex
	go func() {
		for s := range sig {
			if s == syscall.SIGUSR1 {
				out.Lock()
				printAllocs(stdout)
				out.Unlock()
				continue
			}
			// From this goroutine Close waits while the loops' goroutines
			// run them; then nothing keeps a loop running.
			srv.Close()
			return
		}
	}()
	out.Lock()
	fmt.Fprintf(stdout, "httpserve: listening on %s, driver %s, %d loops\n", lns[0].Addr(), ls[0].Driver().Name(), len(ls))
	out.Unlock()
	errs := make([]error, len(ls))
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Go(func() { errs[i] = errors.Join(l.Run(), l.Close()) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func helloHandler(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") }

// allocSamples are what printAllocs reads: the heap allocations of the
// process so far, in objects and bytes.
var allocSamples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}

func printAllocs(w io.Writer) {
	metrics.Read(allocSamples)
	fmt.Fprintf(w, "allocs %d %d\n", allocSamples[0].Value.Uint64(), allocSamples[1].Value.Uint64())
}
