//go:build unix || windows

package httpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowProxy is the trap a new user walks into: a handler that calls a backend with
// net/http's client, which blocks the loop's goroutine for the backend's
// time instead of suspending the fiber.
type slowProxy struct{ backend string }

func (p slowProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp, err := http.Get(p.backend)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(w, resp.Body)
}

// A handler that calls net/http's client against a slow backend is
// reported once, without any setting of the loop's but where its reports
// go, naming the handler and the fixes: httpclient, Blocking, core.Await.
func TestBlockedClientInHandlerReported(t *testing.T) {
	watchdog(t, 2*time.Minute)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		_, _ = io.WriteString(w, "slow")
	}))
	defer backend.Close()
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var got []core.BlockedCall
			count := func() int {
				mu.Lock()
				defer mu.Unlock()
				return len(got)
			}
			l := testloop.New(t, name, eventloop.WithBlockedReport(func(c core.BlockedCall) {
				mu.Lock()
				got = append(got, c)
				mu.Unlock()
			}))
			ts := serve(t, l, &Server{Handler: slowProxy{backend.URL}})
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			get := func() {
				resp, err := client.Get(ts.url)
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.NoError(t, err)
				require.Equal(t, "slow", string(body))
			}
			// Until the sampler has caught the handler in the client (each
			// request holds the loop 30 ms; it looks after 5), then more
			// from the same site, which are not reported again.
			for deadline := time.Now().Add(time.Minute); count() == 0 && time.Now().Before(deadline); {
				get()
			}
			for range 5 {
				get()
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 1, "one report for one call site")
			c := got[0]
			assert.Equal(t, "net/http.Get", c.Call)
			assert.Equal(t, "github.com/revoltgo/eventloop/httpserver.slowProxy.ServeHTTP", c.Site)
			assert.Contains(t, c.Hint, "the HTTP handler github.com/revoltgo/eventloop/httpserver.slowProxy.ServeHTTP holds the loop's goroutine")
			assert.Contains(t, c.Hint, "httpserver.Blocking")
			assert.Contains(t, c.Hint, "core.Await")
			assert.Contains(t, c.Fix, "github.com/revoltgo/eventloop/httpclient")
			s := c.String()
			assert.Contains(t, s, "net/http.Get called by github.com/revoltgo/eventloop/httpserver.slowProxy.ServeHTTP")
			assert.True(t, strings.Contains(s, "net/http.(*Client).Do"), s)
			t.Logf("the report:\n%s", s)
		})
	}
}
