//go:build unix || windows

package httpserver_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// Serve called from main runs the loop itself until the server is closed,
// then returns http.ErrServerClosed; nothing calls Run. The client and
// the Close come from a goroutine of their own.
func Example() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") })

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

	url := "http://" + ln.Addr().String() + "/"
	done := make(chan struct{})
	go func() {
		defer close(done)
		fmt.Print(get(url))
		srv.Close()
	}()

	err = srv.Serve(l, ln) // runs l until Shutdown or Close
	fmt.Println("Serve:", err)
	<-done
	// Output:
	// hello
	// Serve: http: Server closed
}

// Serve called from a fiber of the loop serves in that fiber, and the
// program runs the loop as it would anyway: the Accept waiting keeps Run
// going until the server is shut down.
func Example_fiber() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") })

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
	l.Defer(func(core.CallbackID) {
		err := srv.Serve(l, ln) // suspends this fiber while no client comes
		fmt.Println("Serve:", err)
	})

	url := "http://" + ln.Addr().String() + "/"
	done := make(chan struct{})
	go func() {
		defer close(done)
		fmt.Print(get(url))
		srv.Shutdown(context.Background())
	}()

	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("Run returned")
	<-done
	// Output:
	// hello
	// Serve: http: Server closed
	// Run returned
}

// get returns the body that url answers with, or the error, with net/http's
// client on a goroutine that is not the loop's (from a fiber it would
// block the loop: see package socket's doc). It keeps no connection open.
func get(url string) string {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return err.Error() + "\n"
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error() + "\n"
	}
	return string(body)
}
