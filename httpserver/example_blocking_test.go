//go:build unix || windows

package httpserver_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// Blocking mounts handlers that block their goroutine on the same mux as
// the handlers of the loop: here net/http/pprof, whose profile sleeps for
// the seconds asked. While a one-second profile runs, the loop answers
// another connection at once.
func ExampleBlocking() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello") })
	// pprof's cmdline and symbol answer at once.
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	// The CPU profile and the trace sleep, and so does a named profile
	// asked for a delta (heap?seconds=5): each on a goroutine of its own.
	mux.Handle("/debug/pprof/", httpserver.Blocking(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/profile", httpserver.Blocking(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/trace", httpserver.Blocking(http.HandlerFunc(pprof.Trace)))

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
	base := "http://" + ln.Addr().String()

	done := make(chan struct{})
	go func() {
		defer close(done)
		profiled := make(chan string)
		go func() {
			resp, err := http.Get(base + "/debug/pprof/profile?seconds=1")
			if err != nil {
				profiled <- err.Error()
				return
			}
			resp.Body.Close()
			profiled <- "profile: " + resp.Status
		}()
		time.Sleep(100 * time.Millisecond) // the profile is running
		fmt.Print(get(base + "/"))
		select {
		case p := <-profiled:
			fmt.Println("answered after the profile:", p)
		default:
			fmt.Println("answered while the profile ran")
			fmt.Println(<-profiled)
		}
		http.DefaultClient.CloseIdleConnections()
		srv.Close()
	}()

	err = srv.Serve(l, ln)
	fmt.Println("Serve:", err)
	<-done
	// Output:
	// hello
	// answered while the profile ran
	// profile: 200 OK
	// Serve: http: Server closed
}
