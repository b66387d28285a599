package httpclient_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// silentServer accepts connections and never writes to them: a TLS
// handshake with it never ends.
func silentServer(t *testing.T) string {
	return rawServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
}

// TestTLSHandshakeTimeout: a handshake that outlasts TLSHandshakeTimeout
// fails with net/http's timeout error, while one that outlasts the
// request's own context fails with the context's error.
func TestTLSHandshakeTimeout(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		url := "https://" + silentServer(t) + "/"
		tr := &httpclient.Transport{Loop: l, TLSHandshakeTimeout: 20 * time.Millisecond}
		defer tr.CloseIdleConnections()
		_, err := (&http.Client{Transport: tr}).Get(url)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout(), "%v is a timeout", err)
		assert.Contains(t, err.Error(), "net/http: TLS handshake timeout")

		tr = &httpclient.Transport{Loop: l, TLSHandshakeTimeout: time.Hour}
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		require.NoError(t, err)
		_, err = (&http.Client{Transport: tr}).Do(req)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotContains(t, err.Error(), "TLS handshake timeout")
	})
}

// TestMaxResponseHeaderBytes: a response header larger than the limit
// fails the request with net/http's error, word for word; one that fits
// is read.
func TestMaxResponseHeaderBytes(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", strings.Repeat("x", 8<<10))
	}))
	defer ts.Close()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, limit := range []int64{4 << 10, 16 << 10} {
			std := &http.Transport{MaxResponseHeaderBytes: limit}
			want := do(&http.Client{Transport: std}, mustGet(t, ts.URL))
			std.CloseIdleConnections()
			tr := &httpclient.Transport{Loop: l, MaxResponseHeaderBytes: limit}
			got := do(&http.Client{Transport: tr}, mustGet(t, ts.URL))
			tr.CloseIdleConnections()
			assert.Equal(t, want, got, "a header of 8 KiB with a limit of %d", limit)
			if limit < 8<<10 {
				assert.Contains(t, got.Err, "server response headers exceeded 4096 bytes")
			} else {
				assert.Len(t, got.Header.Get("X-Big"), 8<<10)
			}
		}
	})
}

// TestResponseHeaderTimeoutEndsWithTheHeader: ResponseHeaderTimeout bounds
// the wait for the response's header only; a body that comes later is
// read, as with net/http's Transport.
func TestResponseHeaderTimeoutEndsWithTheHeader(t *testing.T) {
	const timeout = 20 * time.Millisecond
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		time.Sleep(5 * timeout) // at least: the body comes after the timeout
		io.WriteString(w, "late body")
	}))
	defer ts.Close()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		tr := &httpclient.Transport{Loop: l, ResponseHeaderTimeout: timeout}
		defer tr.CloseIdleConnections()
		got := do(&http.Client{Transport: tr}, mustGet(t, ts.URL))
		assert.Equal(t, "", got.Err)
		assert.Equal(t, "", got.BodyErr)
		assert.Equal(t, "late body", got.Body)
	})
}
