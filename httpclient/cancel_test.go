package httpclient_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stalled is a server that never answers: it accepts and reads, or
// answers the header and never the body, as its path says. The test's
// end releases it. A request whose query is "signal" is announced on
// arrived once the server has read it (the client then awaits the
// header).
func stalled(t *testing.T) (ts *httptest.Server, arrived <-chan struct{}) {
	gone := make(chan struct{})
	in := make(chan struct{}, 1)
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery == "signal" {
			select {
			case in <- struct{}{}:
			default:
			}
		}
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, "ten bytes.")
			w.(http.Flusher).Flush()
		}
		select {
		case <-gone:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(gone); ts.Close() })
	return ts, in
}

// TestCancel: the request's context ends a request that waits for the
// header or for its body, a context deadline and ResponseHeaderTimeout
// give net/http's timeouts, and http.Client.Timeout works too; each
// with the error net/http's Transport gives, from a fiber and a
// goroutine; the connection is not kept.
func TestCancel(t *testing.T) {
	ts, arrived := stalled(t)
	std := &http.Transport{}
	defer std.CloseIdleConnections()
	type attempt func(rt http.RoundTripper) error
	cases := []struct {
		name string
		try  attempt
	}{
		{"cancel awaiting the header", func(rt http.RoundTripper) error {
			// Cancelled once the server has the request, not after a time
			// that a loaded machine may spend dialling.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			select {
			case <-arrived: // a stale announcement
			default:
			}
			go func() {
				select {
				case <-arrived:
				case <-ctx.Done():
				case <-time.After(10 * time.Second): // a hang guard
				}
				cancel()
			}()
			_, err := roundTrip(ctx, rt, ts.URL+"/header?signal")
			return err
		}},
		{"deadline awaiting the header", func(rt http.RoundTripper) error {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			_, err := roundTrip(ctx, rt, ts.URL+"/header")
			return err
		}},
		{"cancel reading the body", func(rt http.RoundTripper) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := roundTrip(ctx, rt, ts.URL+"/body")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b := make([]byte, 10)
			if _, err := io.ReadFull(resp.Body, b); err != nil {
				return err
			}
			time.AfterFunc(20*time.Millisecond, cancel)
			_, err = resp.Body.Read(b)
			return err
		}},
		{"ResponseHeaderTimeout", func(rt http.RoundTripper) error {
			_, err := roundTrip(context.Background(), rt, ts.URL+"/header")
			return err
		}},
		{"Client.Timeout", func(rt http.RoundTripper) error {
			_, err := (&http.Client{Transport: rt, Timeout: 20 * time.Millisecond}).Get(ts.URL + "/header")
			return err
		}},
	}
	want := map[string]string{}
	for _, tc := range cases {
		std.ResponseHeaderTimeout = 0
		if tc.name == "ResponseHeaderTimeout" {
			std.ResponseHeaderTimeout = 20 * time.Millisecond
		}
		want[tc.name] = describe(tc.try(std))
		t.Logf("net/http: %s: %s", tc.name, want[tc.name])
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				for _, tc := range cases {
					tr := &httpclient.Transport{Loop: l}
					if tc.name == "ResponseHeaderTimeout" {
						tr.ResponseHeaderTimeout = 20 * time.Millisecond
					}
					var err error
					c.run(t, l, func() { err = tc.try(tr) })
					assert.Equal(t, want[tc.name], describe(err), tc.name)
					assert.Zero(t, tr.IdleConns(), "%s: a connection kept", tc.name)
				}
			})
		}
	})
	assert.Equal(t, "timeout: net/http: timeout awaiting response headers", want["ResponseHeaderTimeout"])
}

// roundTrip makes a GET of url with ctx through rt.
func roundTrip(ctx context.Context, rt http.RoundTripper, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	return rt.RoundTrip(req)
}

// describe says what a caller learns of err: canceled, timeout (and the
// message of net/http's own), or its message.
func describe(err error) string {
	if err == nil {
		return "no error"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "\": "); i >= 0 {
		msg = msg[i+3:]
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case os.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded):
		var ne net.Error
		// http.Client says "Client.Timeout exceeded" only if its timer
		// goroutine won the race with the request's context (which a
		// RoundTripper that it does not know leaves to chance): a timeout.
		if errors.As(err, &ne) && strings.HasPrefix(msg, "net/http:") {
			return "timeout: " + msg
		}
		return "timeout"
	}
	return msg
}

// TestFiberWaitsAlone: a fiber waiting on a request that does not answer
// suspends alone: timers and other fibers of the loop run meanwhile, and
// no goroutine is started per request (50 at once on a server of the
// same loop, package httpserver, answered once all are in).
func TestFiberWaitsAlone(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts, _ := stalled(t)
		tr := &httpclient.Transport{Loop: l}
		done := make(chan error, 1)
		ctx, cancel := context.WithCancel(context.Background())
		onFiber(t, l, func() {
			l.Defer(func(core.CallbackID) {
				_, err := roundTrip(ctx, tr, ts.URL+"/header")
				done <- err
			})
		})
		ticks := make(chan struct{})
		onFiber(t, l, func() {
			l.Delay(10*time.Millisecond, func(core.CallbackID) { close(ticks) })
		})
		<-ticks // the loop ran a timer while the request waits
		select {
		case err := <-done:
			t.Fatalf("the request ended: %v", err)
		default:
		}
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}
