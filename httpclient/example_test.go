package httpclient_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// A reverse proxy on one loop: httputil.ReverseProxy, unchanged, inside
// package httpserver, with a Transport of the same loop. The backend is
// served by the loop too; each request suspends only its connection's
// fiber while the proxy waits for the backend.
func Example_reverseProxy() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	backendLn, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	backend := &httpserver.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "backend got %s %s, forwarded for %s", r.Method, r.URL.Path, r.Header.Get("X-Forwarded-For"))
	})}

	proxyLn, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	target, _ := url.Parse("http://" + backendLn.Addr().String())
	tr := &httpclient.Transport{Loop: l}
	proxy := &httpserver.Server{Handler: &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.SetXForwarded()
		},
		Transport: tr,
	}}

	l.Defer(func(core.CallbackID) { backend.Serve(l, backendLn) })
	l.Defer(func(core.CallbackID) { proxy.Serve(l, proxyLn) })
	l.Defer(func(core.CallbackID) {
		// A client on the loop too: the same kind of Transport.
		client := &http.Client{Transport: &httpclient.Transport{Loop: l}}
		resp, err := client.Get("http://" + proxyLn.Addr().String() + "/hello")
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.Status, string(body))
		client.CloseIdleConnections()
		tr.CloseIdleConnections()
		proxy.Close()
		backend.Close()
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 200 OK backend got GET /hello, forwarded for 127.0.0.1
}
