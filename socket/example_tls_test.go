//go:build unix || windows

package socket_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// TLSClient over a Conn dialed in a fiber: a request to an HTTPS server
// (net/http's, from httptest), written and read in blocking style while
// the loop stays free for every other fiber.
func ExampleTLSClient() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello over TLS")
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate()) // httptest's certificate is for example.com

	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	l.Defer(func(core.CallbackID) {
		raw, err := socket.Dial(l, "tcp", srv.Listener.Addr().String())
		if err != nil {
			fmt.Println(err)
			return
		}
		c := socket.TLSClient(raw, &tls.Config{RootCAs: pool, ServerName: "example.com"})
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n") // the handshake first
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, err := io.ReadAll(resp.Body)
		fmt.Printf("%s %q %v, TLS 1.3: %v\n", resp.Status, body, err, c.ConnectionState().Version == tls.VersionTLS13)
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 200 OK "hello over TLS" <nil>, TLS 1.3: true
}
