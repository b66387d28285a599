//go:build unix || windows

package httpserver_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/internal/testcert"
	"github.com/revoltgo/eventloop/socket"
)

// ServeTLS serves HTTPS with the certificate and key of two PEM files
// (here a self-signed pair made for the example, which its client
// trusts). Requests carry the handshake's state in Request.TLS; a client
// that offers h2 gets HTTP/1.1.
func ExampleServer_ServeTLS() {
	dir, err := os.MkdirTemp("", "servetls")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	certFile, keyFile, roots := exampleCert(dir)

	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello over %s, %s\n", r.Proto, tls.VersionName(r.TLS.Version))
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

	done := make(chan struct{})
	go func() {
		defer close(done)
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("https://" + ln.Addr().String() + "/")
		if err != nil {
			fmt.Println(err)
		} else {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Print(string(body))
		}
		srv.Close()
	}()

	err = srv.ServeTLS(l, ln, certFile, keyFile) // runs l until Shutdown or Close
	fmt.Println("ServeTLS:", err)
	<-done
	// Output:
	// hello over HTTP/1.1, TLS 1.3
	// ServeTLS: http: Server closed
}

// exampleCert writes a self-signed certificate for 127.0.0.1 and its key
// to two files in dir, and returns them with a pool that trusts the
// certificate.
func exampleCert(dir string) (certFile, keyFile string, roots *x509.CertPool) {
	c, err := testcert.New(time.Now().Add(time.Hour), "localhost")
	if err != nil {
		log.Fatal(err)
	}
	certFile, keyFile, err = c.WriteFiles(dir)
	if err != nil {
		log.Fatal(err)
	}
	return certFile, keyFile, c.Pool
}
