package httpclient_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// A handler that calls another service: through a client whose
// Transport is the loop's, the call suspends the handler's fiber alone,
// and the loop serves the other requests meanwhile. http.DefaultClient
// would work too, but would block the loop's goroutine for the whole
// call: every other request of the loop would wait behind it.
func Example_inHandler() {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "42")
	}))
	defer backend.Close()

	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	tr := &httpclient.Transport{Loop: l} // one per loop, shared by its handlers
	client := &http.Client{Transport: tr}

	srv := &httpserver.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := client.Get(backend.URL) // suspends this handler only
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		fmt.Fprintf(w, "the backend says %s", answer)
	})}
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })
	l.Defer(func(core.CallbackID) {
		// A client of the server, on the loop as well.
		c := &http.Client{Transport: &httpclient.Transport{Loop: l}}
		defer c.CloseIdleConnections()
		resp, err := c.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.Status, string(body))
		tr.CloseIdleConnections()
		srv.Close()
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output: 200 OK the backend says 42
}
