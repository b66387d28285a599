package httpclient_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// BenchmarkGet: keep-alive GETs of 13 bytes from an httptest server, with
// net/http's Transport and with ours (from a fiber of a loop that a
// goroutine runs), one request at a time.
func BenchmarkGet(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!")
	}))
	defer ts.Close()
	get := func(b *testing.B, client *http.Client) {
		resp, err := client.Get(ts.URL)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.Run("net/http", func(b *testing.B) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		b.ReportAllocs()
		for b.Loop() {
			get(b, client)
		}
	})
	b.Run("ours", func(b *testing.B) {
		l, err := eventloop.New()
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		testloop.Run(b, l)
		tr := &httpclient.Transport{Loop: l}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		b.ReportAllocs()
		onFiber(b, l, func() {
			for b.Loop() {
				get(b, client)
			}
		})
	})
}
