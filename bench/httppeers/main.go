// Command httppeers serves the 13-byte "Hello, World!" with one of the
// HTTP servers that the HTTP benchmark (`eventloop bench --http`) sets
// beside ours:
//
//	nethttp   net/http's Server, a goroutine per connection
//	fasthttp  github.com/valyala/fasthttp's Server, a goroutine per connection from a worker pool
//
// Each runs with its library's defaults. With -dir DIR, nethttp serves
// http.FileServer(http.Dir(DIR)) instead, the static-file tables of the
// benchmark (fasthttp takes no -dir). The benchmark builds this program
// once and starts it as a process of its own per server, so that the CPU
// time and the allocations of that process are the server's alone. It
// lives in the module bench/ so that the library's go.mod does not require
// fasthttp. By hand, from the repository root:
//
//	go -C bench run ./httppeers -server fasthttp -addr 127.0.0.1:8080
//	go -C bench run ./httppeers -server nethttp -addr 127.0.0.1:8080 -dir /tmp/files
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
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// dir is -dir: the directory nethttp serves the files of, if not "".
var dir string

var servers = map[string]func(ln net.Listener) error{
	"nethttp": func(ln net.Listener) error {
		if dir != "" {
			return http.Serve(ln, http.FileServer(http.Dir(dir)))
		}
		return http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "Hello, World!")
		}))
	},
	"fasthttp": func(ln net.Listener) error {
		return fasthttp.Serve(ln, func(ctx *fasthttp.RequestCtx) {
			ctx.WriteString("Hello, World!")
		})
	},
}

func main() {
	name := flag.String("server", "", "nethttp or fasthttp")
	addr := flag.String("addr", "", "host:port to listen on, such as 127.0.0.1:8080")
	maxLife := flag.Duration("max-life", time.Hour, "exit by itself after this long")
	flag.StringVar(&dir, "dir", "", "nethttp: serve http.FileServer(http.Dir(DIR)) instead of \"Hello, World!\"")
	flag.Parse()
	serve, ok := servers[*name]
	if !ok || *addr == "" || flag.NArg() > 0 || (dir != "" && *name != "nethttp") {
		fmt.Fprintln(os.Stderr, "usage: httppeers -server nethttp|fasthttp -addr HOST:PORT [-max-life D] [-dir DIR (nethttp)]")
		os.Exit(2)
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(os.Stderr, "httppeers: -dir %s: not a directory (%v)\n", dir, err)
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
