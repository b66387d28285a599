//go:build unix

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// httpServeCmd is the server of `bench --http` (hidden): package
// httpserver serving the 13-byte "Hello, World!" on ADDR with --loops
// loops, each on a goroutine of its own with its own listener on ADDR
// through SO_REUSEPORT, so that the kernel spreads the connections, and
// one Server over all; with --dir DIR, http.FileServer(http.Dir(DIR))
// instead (the static-file tables); with --proxy HOST:PORT, a reverse
// proxy to that backend instead (the reverse-proxy tables): an
// httputil.ReverseProxy per loop whose Transport is an httpclient.Transport
// of that loop (a Transport belongs to its loop), so that a request
// suspends its handler's fiber alone while the backend answers. With
// --cert FILE --key FILE (PEM) it serves HTTPS (ServeTLS; the HTTPS
// tables). SIGINT or SIGTERM closes it; SIGUSR1 prints the process's
// allocations so far, "allocs OBJECTS BYTES", as the peers of
// bench/httppeers do.
func httpServeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("httpserve", flag.ContinueOnError)
	driver := fs.String("driver", "", "driver (default: what eventloop.New picks)")
	loops := fs.Int("loops", 1, "loops, one goroutine and one listener each")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	dir := fs.String("dir", "", "serve http.FileServer(http.Dir(DIR)) instead of \"Hello, World!\"")
	proxy := fs.String("proxy", "", "be a reverse proxy to this backend (host:port, or an http URL) instead of \"Hello, World!\"")
	certFile := fs.String("cert", "", "serve HTTPS with this certificate (PEM), with --key")
	keyFile := fs.String("key", "", "the key of --cert (PEM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one address, such as 127.0.0.1:8080")
	}
	if *loops < 1 {
		return fmt.Errorf("--loops %d: want at least 1", *loops)
	}
	if *dir != "" && *proxy != "" {
		return errors.New("--dir and --proxy: one or the other")
	}
	if (*certFile == "") != (*keyFile == "") {
		return errors.New("--cert and --key go together")
	}
	if *certFile != "" {
		// ServeTLS loads them too, on the loop; an error here says why
		// rather than a server that never answers.
		if _, err := tls.LoadX509KeyPair(*certFile, *keyFile); err != nil {
			return fmt.Errorf("--cert, --key: %w", err)
		}
	}
	var target *url.URL
	if *proxy != "" {
		var err error
		if target, err = proxyTarget(*proxy); err != nil {
			return err
		}
	}
	// The reverse proxies, one per loop, by loop.
	proxies := map[*core.Loop]*httputil.ReverseProxy{}
	var transports []*httpclient.Transport
	var handler http.Handler = http.HandlerFunc(helloHandler)
	switch {
	case target != nil:
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			proxies[httpserver.LoopFromContext(r.Context())].ServeHTTP(w, r)
		})
	case *dir != "":
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
		if target != nil {
			tr := &httpclient.Transport{Loop: l, MaxIdleConnsPerHost: 1024}
			transports = append(transports, tr)
			proxies[l] = &httputil.ReverseProxy{
				Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
				Transport: tr,
				// wrk closes its connections at the window's end, which
				// cancels the requests in flight: not an error to log.
				ErrorLog: log.New(io.Discard, "", 0),
			}
		}
		if i > 0 {
			addr = lns[0].Addr().String()
		}
		lc := socket.ListenConfig{ReusePort: *loops > 1}
		ln, err := lc.Listen(context.Background(), l, "tcp", addr)
		if err != nil {
			return errors.Join(err, closeAll())
		}
		lns = append(lns, ln)
		if *certFile != "" {
			l.Defer(func(core.CallbackID) { srv.ServeTLS(l, ln, *certFile, *keyFile) })
		} else {
			l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })
		}
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
			for _, tr := range transports {
				tr.CloseIdleConnections()
			}
			return
		}
	}()
	what := "HTTP"
	if *certFile != "" {
		what = "HTTPS"
	}
	if target != nil {
		what += ", a reverse proxy to " + target.String()
	}
	out.Lock()
	fmt.Fprintf(stdout, "httpserve: %s on %s, driver %s, %s\n", what, lns[0].Addr(), ls[0].Driver().Name(), plural(len(ls), "loop"))
	out.Unlock()
	errs := make([]error, len(ls))
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Go(func() { errs[i] = errors.Join(l.Run(), l.Close()) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// proxyTarget is --proxy: host:port, or an http URL.
func proxyTarget(s string) (*url.URL, error) {
	v := s
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || u.Scheme != "http" {
		return nil, fmt.Errorf("--proxy %s: want host:port or an http URL", s)
	}
	return u, nil
}

func helloHandler(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") }

// allocSamples are what printAllocs reads: the heap allocations of the
// process so far, in objects and bytes.
var allocSamples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}

func printAllocs(w io.Writer) {
	metrics.Read(allocSamples)
	fmt.Fprintf(w, "allocs %d %d\n", allocSamples[0].Value.Uint64(), allocSamples[1].Value.Uint64())
}
