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
)

// The package doc's snippet: a GET made from a fiber of the loop, which
// suspends while the request is under way.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	url := srv.URL

	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	tr := &httpclient.Transport{Loop: l}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	l.Defer(func(core.CallbackID) {
		resp, err := client.Get(url) // the fiber suspends; the loop goes on
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(resp.Status, string(body))
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output: 200 OK hello
}
