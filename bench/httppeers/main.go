// Command httppeers serves the 13-byte "Hello, World!" with one of the
// HTTP servers that the HTTP benchmark (`eventloop bench --http`) sets
// beside ours:
//
//	nethttp   net/http's Server, a goroutine per connection
//	fasthttp  github.com/valyala/fasthttp's Server, a goroutine per connection from a worker pool
//	nbio      github.com/lesismal/nbio's nbhttp.Engine, pollers on epoll and a goroutine pool for the handlers
//	floor     (Linux) not a server but the least one can do: per readable conn one read and one canned write (floor_linux.go)
//
// Each runs with its library's defaults. With -dir DIR, nethttp serves
// http.FileServer(http.Dir(DIR)) instead, the static-file tables of the
// benchmark; with -proxy HOST:PORT, it is a reverse proxy to that
// backend instead, an httputil.ReverseProxy whose Transport is a clone
// of http.DefaultTransport with MaxIdleConnsPerHost 1024 (the
// reverse-proxy tables). With -cert FILE -key FILE (PEM), nethttp and
// nbio serve HTTPS with that certificate (the HTTPS tables): ServeTLS,
// and nbhttp's AddrsTLS over its fork of crypto/tls. fasthttp and floor
// take none of these. The benchmark builds this program once and starts
// it as a process of its own per server, so that the CPU time and the
// allocations of that process are the server's alone. It lives in the
// module bench/ so that the library's go.mod does not require fasthttp
// or nbio. By hand, from the repository root:
//
//	go -C bench run ./httppeers -server fasthttp -addr 127.0.0.1:8080
//	go -C bench run ./httppeers -server nethttp -addr 127.0.0.1:8080 -dir /tmp/files
//	go -C bench run ./httppeers -server nethttp -addr 127.0.0.1:8080 -proxy 127.0.0.1:9090
//	go -C bench run ./httppeers -server nbio -addr 127.0.0.1:8443 -cert cert.pem -key key.pem
//
// On SIGUSR1 it prints one line to stdout, "allocs OBJECTS BYTES", the
// heap allocations of the process so far (runtime/metrics), which the
// benchmark reads at both ends of its window. It serves until SIGINT or
// SIGTERM, or until -max-life has passed.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"

	nbtls "github.com/lesismal/llib/std/crypto/tls"
	"github.com/lesismal/nbio/logging"
	"github.com/lesismal/nbio/nbhttp"
	"github.com/valyala/fasthttp"
)

// The flags that change what a server serves.
var (
	dir       string // -dir: the directory nethttp serves the files of, if not ""
	proxy     string // -proxy: the backend nethttp proxies to, if not ""
	certFile  string // -cert and -key: serve HTTPS, if not ""
	keyFile   string
	hello     = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "Hello, World!") })
	discarded = log.New(io.Discard, "", 0)
)

var servers = map[string]func(ln net.Listener) error{
	"nethttp": func(ln net.Listener) error {
		var h http.Handler = hello
		switch {
		case dir != "":
			h = http.FileServer(http.Dir(dir))
		case proxy != "":
			target, err := backendURL(proxy)
			if err != nil {
				return err
			}
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = 1024
			h = &httputil.ReverseProxy{
				Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
				Transport: tr,
				// wrk closes its connections at the window's end, which
				// cancels the requests in flight: not an error to log.
				ErrorLog: discarded,
			}
		}
		if certFile != "" {
			srv := &http.Server{Handler: h}
			return srv.ServeTLS(ln, certFile, keyFile)
		}
		return http.Serve(ln, h)
	},
	"fasthttp": func(ln net.Listener) error {
		return fasthttp.Serve(ln, func(ctx *fasthttp.RequestCtx) {
			ctx.WriteString("Hello, World!")
		})
	},
	"nbio": func(ln net.Listener) error {
		logging.SetLevel(logging.LevelError)
		conf := nbhttp.Config{
			Handler: hello,
			// The listener is ours, made on -addr; nbhttp accepts on it.
			Listen: func(network, addr string) (net.Listener, error) { return ln, nil },
		}
		if certFile != "" {
			cert, err := nbtls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				return err
			}
			conf.AddrsTLS = []string{ln.Addr().String()}
			conf.TLSConfig = &nbtls.Config{Certificates: []nbtls.Certificate{cert}}
		} else {
			conf.Addrs = []string{ln.Addr().String()}
		}
		engine := nbhttp.NewEngine(conf)
		if err := engine.Start(); err != nil {
			return err
		}
		select {} // until a signal or -max-life ends the process
	},
}

// backendURL is -proxy: host:port, or a URL.
func backendURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("-proxy %s: not host:port nor a URL (%v)", s, err)
	}
	return u, nil
}

const usage = "usage: httppeers -server nethttp|fasthttp|nbio|floor -addr HOST:PORT [-max-life D] [-dir DIR | -proxy HOST:PORT (nethttp)] [-cert FILE -key FILE (nethttp, nbio)]"

func main() {
	name := flag.String("server", "", "nethttp, fasthttp, nbio or floor (Linux)")
	addr := flag.String("addr", "", "host:port to listen on, such as 127.0.0.1:8080")
	maxLife := flag.Duration("max-life", time.Hour, "exit by itself after this long")
	flag.StringVar(&dir, "dir", "", "nethttp: serve http.FileServer(http.Dir(DIR)) instead of \"Hello, World!\"")
	flag.StringVar(&proxy, "proxy", "", "nethttp: be a reverse proxy to this backend (host:port) instead")
	flag.StringVar(&certFile, "cert", "", "nethttp, nbio: serve HTTPS with this certificate (PEM), with -key")
	flag.StringVar(&keyFile, "key", "", "nethttp, nbio: the key of -cert (PEM)")
	flag.Parse()
	serve, ok := servers[*name]
	if !ok || *addr == "" || flag.NArg() > 0 || (dir != "" || proxy != "") && *name != "nethttp" || dir != "" && proxy != "" ||
		(certFile == "") != (keyFile == "") || certFile != "" && (*name == "fasthttp" || *name == "floor") {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(os.Stderr, "httppeers: -dir %s: not a directory (%v)\n", dir, err)
			os.Exit(2)
		}
	}
	if proxy != "" {
		if _, err := backendURL(proxy); err != nil {
			fmt.Fprintln(os.Stderr, "httppeers:", err)
			os.Exit(2)
		}
	}
	go reportAllocs()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-time.After(*maxLife):
			fmt.Fprintln(os.Stderr, "httppeers: -max-life reached")
		}
		os.Exit(0)
	}()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "httppeers:", err)
		os.Exit(1)
	}
	if err := serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "httppeers:", err)
		os.Exit(1)
	}
}

// reportAllocs answers each SIGUSR1 with the process's allocations so
// far (the benchmark's protocol, the same as its own server's).
func reportAllocs() {
	usr := make(chan os.Signal, 1)
	signal.Notify(usr, syscall.SIGUSR1)
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	for range usr {
		metrics.Read(samples)
		fmt.Printf("allocs %d %d\n", samples[0].Value.Uint64(), samples[1].Value.Uint64())
	}
}
