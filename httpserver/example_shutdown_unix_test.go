//go:build unix

package httpserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// On SIGINT (Ctrl+C) the server shuts down gracefully: it stops accepting,
// lets the requests in flight finish, and the program exits 0. Serve
// returns http.ErrServerClosed as soon as Shutdown begins, while those
// requests are still being served: returning from main then would drop
// them, as with net/http, so main waits for Shutdown to return. Here the
// program sends itself the SIGINT once three requests are in flight.
func Example_shutdown() {
	inFlight := make(chan struct{}, 3) // for the example: a request has begun
	mux := http.NewServeMux()
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		inFlight <- struct{}{}
		// Work that takes a while without holding the loop: the fiber of
		// the request waits for a timer of the loop.
		l := httpserver.LoopFromContext(r.Context())
		s := l.Suspension()
		l.Delay(200*time.Millisecond, func(core.CallbackID) { s.Resume(nil) })
		if _, err := s.Suspend(); err != nil {
			return
		}
		fmt.Fprintln(w, "done")
	})

	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &httpserver.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	sigint := make(chan os.Signal, 1)
	signal.Notify(sigint, os.Interrupt)
	defer signal.Stop(sigint)
	shutdown := make(chan error, 1)
	go func() {
		<-sigint
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shutdown <- srv.Shutdown(ctx) // returns once the requests in flight are done
	}()

	// The example's clients: three requests, and Ctrl+C while they run.
	url := "http://" + ln.Addr().String() + "/work"
	answers := make(chan string, 3)
	for range 3 {
		go func() { answers <- get(url) }()
	}
	go func() {
		for range 3 {
			<-inFlight
		}
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()

	err = srv.Serve(l, ln) // returns as soon as Shutdown begins
	fmt.Println("Serve:", err)
	fmt.Println("Shutdown:", <-shutdown) // not before: the requests would be dropped
	for range 3 {
		fmt.Print(<-answers)
	}
	// Output:
	// Serve: http: Server closed
	// Shutdown: <nil>
	// done
	// done
	// done
}
