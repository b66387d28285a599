package httpclient_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTLS: https over socket.TLSClient, answered as net/http's Transport
// is, one connection for many requests; a server certificate the client
// does not trust fails with net/http's error.
func TestTLS(t *testing.T) {
	var cc connCounter
	ts := httptest.NewUnstartedServer(upstream())
	ts.Config.ConnState = cc.hook
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted client's handshake errors
	ts.StartTLS()
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	trusted := &tls.Config{RootCAs: pool}
	names := []string{"GET", "big", "chunked", "trailer", "gzip", "POST chunked", "HEAD", "redirect"}
	std := &http.Transport{TLSClientConfig: trusted}
	defer std.CloseIdleConnections()
	want := map[string]outcome{}
	for _, rq := range requests {
		want[rq.name] = do(&http.Client{Transport: std}, rq.make(ts.URL))
	}
	untrusted := describe(func() error { _, err := (&http.Client{}).Get(ts.URL); return err }())
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				before := cc.count()
				tr := &httpclient.Transport{Loop: l, TLSClientConfig: trusted}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				for _, rq := range requests {
					if !slices.Contains(names, rq.name) {
						continue
					}
					var got outcome
					c.run(t, l, func() { got = do(client, rq.make(ts.URL)) })
					assert.Equal(t, want[rq.name], got, rq.name)
				}
				assert.Equal(t, 1, cc.count()-before, "connections for %d requests", len(names))

				bare := &http.Client{Transport: &httpclient.Transport{Loop: l}}
				var err error
				c.run(t, l, func() { _, err = bare.Get(ts.URL) })
				assert.Equal(t, untrusted, describe(err))
			})
		}
	})
	assert.Contains(t, untrusted, "certificate")
}

// TestTLSConfigDefaults: a TLSClientConfig without a ServerName gets the
// URL's host, one without NextProtos offers http/1.1 (as net/http's
// Transport does), each whatever the other field holds, and the caller's
// config is never changed.
func TestTLSConfigDefaults(t *testing.T) {
	protos := make(chan string, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.TLS.NegotiatedProtocol
	}))
	ts.StartTLS()
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	host := ts.Listener.Addr().(*net.TCPAddr).IP.String()
	cases := []struct {
		name string
		cfg  *tls.Config
	}{
		{"NextProtos set, no ServerName", &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}}},
		{"ServerName set, no NextProtos", &tls.Config{RootCAs: pool, ServerName: host}},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := c.cfg.Clone()
				tr := &httpclient.Transport{Loop: l, TLSClientConfig: c.cfg}
				defer tr.CloseIdleConnections()
				resp, err := (&http.Client{Transport: tr}).Get(ts.URL)
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, "http/1.1", <-protos, "the protocol the server agreed")
				assert.Equal(t, before.ServerName, c.cfg.ServerName, "the caller's ServerName")
				assert.Equal(t, before.NextProtos, c.cfg.NextProtos, "the caller's NextProtos")
			})
		}
	})
}

// TestTLSServerWithoutALPN: a server that takes part in no protocol
// negotiation (its NextProtos empty) is spoken to in HTTP/1.1, as
// net/http's Transport does.
func TestTLSServerWithoutALPN(t *testing.T) {
	protos := make(chan string, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.TLS.NegotiatedProtocol
		io.WriteString(w, "no ALPN")
	}))
	ts.TLS = &tls.Config{NextProtos: []string{}} // not nil: StartTLS would offer http/1.1
	ts.StartTLS()
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		tr := &httpclient.Transport{Loop: l, TLSClientConfig: &tls.Config{RootCAs: pool}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(ts.URL)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, "no ALPN", string(body))
		assert.Equal(t, "", <-protos, "the protocol the server agreed")
	})
}
