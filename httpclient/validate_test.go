package httpclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestValidation: a request net/http's Transport refuses before it
// dials (a method or a header name that is not a token, a value with a
// control byte) is refused by ours too, and one it sends is sent: an
// empty method is GET, a space or obs-text (0x80 and above) is a valid
// value. Each case's first and last bytes of a class are the edges.
func TestRequestValidation(t *testing.T) {
	cases := []struct {
		name   string
		method string
		header http.Header
	}{
		{"empty method", "", nil},
		{"method", "PATCH", nil},
		{"method with a space", "GE T", nil},
		{"method with 0x80", "GET\x80", nil},
		{"method with 0x7f", "GET\x7f", nil},
		{"name with a quote", "", http.Header{`X"`: {"v"}}},
		{"name with a brace", "", http.Header{"X}": {"v"}}},
		{"name with a space", "", http.Header{"X Y": {"v"}}},
		{"name with 0x80", "", http.Header{"X\x80": {"v"}}},
		{"name with 0x7f", "", http.Header{"X\x7f": {"v"}}},
		{"name of tchar", "", http.Header{"!#$%&'*+-.^_`|~09AZaz": {"v"}}},
		{"empty name", "", http.Header{"": {"v"}}},
		{"value with a space", "", http.Header{"X": {"a b"}}},
		{"value with a tab", "", http.Header{"X": {"a\tb"}}},
		{"value with 0x80", "", http.Header{"X": {"a\x80b"}}},
		{"value with 0x1f", "", http.Header{"X": {"a\x1fb"}}},
		{"value with 0x7f", "", http.Header{"X": {"a\x7fb"}}},
		{"value with NUL", "", http.Header{"X": {"a\x00b"}}},
		{"empty value", "", http.Header{"X": {""}}},
	}
	seen := make(chan string, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Method
	}))
	defer ts.Close()
	send := func(rt http.RoundTripper, method string, h http.Header) (string, error) {
		req, err := http.NewRequestWithContext(context.Background(), "GET", ts.URL, nil)
		require.NoError(t, err)
		req.Method, req.Header = method, h
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return "", err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return <-seen, nil
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		std := &http.Transport{DisableKeepAlives: true}
		tr := &httpclient.Transport{Loop: l}
		defer tr.CloseIdleConnections()
		for _, c := range cases {
			want, wantErr := send(std, c.method, c.header)
			got, err := send(tr, c.method, c.header)
			if wantErr != nil {
				assert.Error(t, err, "%s: net/http refused it (%v)", c.name, wantErr)
				continue
			}
			if assert.NoError(t, err, "%s: net/http sent it", c.name) {
				assert.Equal(t, want, got, "%s: the method the server saw", c.name)
			}
		}
	})
}

// TestDefaultPort: a URL without a port is dialed at the scheme's, 80 or
// 443. Nothing is expected to listen there on the test's address; if
// something does, the request may succeed, which a port-less dial could
// not do either.
func TestDefaultPort(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		tr := &httpclient.Transport{Loop: l}
		defer tr.CloseIdleConnections()
		for scheme, port := range map[string]string{"http": "80", "https": "443"} {
			req, err := http.NewRequest("GET", scheme+"://127.0.0.254/", nil)
			require.NoError(t, err)
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				continue
			}
			assert.True(t, strings.Contains(err.Error(), "127.0.0.254:"+port),
				"%s: the error names the address with the scheme's port: %v", scheme, err)
		}
	})
}
