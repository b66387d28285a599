// Command httpawait is an HTTP server on an event loop whose handler
// waits for a slow call (a database, a remote service) without holding
// the loop: the handler's fiber suspends in core.Await while the loop
// answers the other requests.
//
//	go run ./examples/httpawait                       # serve, play the clients, stop
//	go run ./examples/httpawait -serve 127.0.0.1:8080 # serve until Ctrl-C
//	EVENTLOOP_DRIVER=stream go run ./examples/httpawait
//
// Without -serve it also plays the clients: one asks /slow, and while it
// waits five others ask / and are answered; then the server shuts down.
// Package socket serves on Unix and Windows; elsewhere Listen says so.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

func main() {
	serve := flag.String("serve", "", "serve on this address until interrupted")
	slow := flag.Duration("slow", 500*time.Millisecond, "how long /slow's call takes")
	flag.Parse()
	if err := run(*serve, *slow, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "httpawait:", err)
		os.Exit(1)
	}
}

// slowCall stands for a blocking client library: it holds its goroutine.
func slowCall(ctx context.Context, d time.Duration) (string, error) {
	select {
	case <-time.After(d):
		return "the slow answer", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func handler(slow time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		// Run the blocking call on a goroutine; this fiber suspends, the
		// loop goes on serving.
		l := httpserver.LoopFromContext(r.Context())
		v, err := core.Await(l, func(ctx context.Context) (string, error) { return slowCall(ctx, slow) })
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, v+"\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!\n")
	})
	return mux
}

func run(serve string, slow time.Duration, out io.Writer) error {
	l, err := eventloop.New()
	if err != nil {
		return err
	}
	defer l.Close()
	addr := serve
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := socket.Listen(l, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &httpserver.Server{Handler: handler(slow), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "listening on http://%s (driver %s)\n", ln.Addr(), l.Driver().Name())

	// The accept loop runs in a fiber; Serve returns when Shutdown closes
	// the listener.
	l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })

	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx) // from another goroutine: it waits while Run serves
	}
	if serve != "" {
		go func() {
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			<-sig
			signal.Stop(sig)
			stop()
		}()
	} else {
		go func() {
			clients(out, "http://"+ln.Addr().String())
			stop()
		}()
	}
	return l.Run() // returns once the server is shut down
}

// clients asks /slow, and / five times while /slow waits, and prints the
// answers in the order they come.
func clients(out io.Writer, url string) {
	start := time.Now()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "%6.1f ms  "+format+"\n", append([]any{float64(time.Since(start).Microseconds()) / 1000}, args...)...)
	}
	get := func(path string) {
		resp, err := http.Get(url + path)
		if err != nil {
			say("GET %s: %v", path, err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		say("GET %-6s %d %q", path, resp.StatusCode, b)
	}
	var wg sync.WaitGroup
	wg.Go(func() { get("/slow") })
	time.Sleep(20 * time.Millisecond) // /slow is waiting by now
	for range 5 {
		get("/")
	}
	wg.Wait()
	http.DefaultClient.CloseIdleConnections()
}
