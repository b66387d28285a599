package httpclient_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveOnLoop serves h with package httpserver on l (run by another
// goroutine) until the test ends; it returns the base URL.
func serveOnLoop(t *testing.T, l *core.Loop, h http.Handler) string {
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &httpserver.Server{Handler: h}
	served := make(chan error, 1)
	require.NoError(t, l.Post(func() {
		l.Defer(func(core.CallbackID) { served <- srv.Serve(l, ln) })
	}))
	t.Cleanup(func() {
		require.NoError(t, l.Post(func() {
			l.Defer(func(core.CallbackID) { srv.Close() })
		}))
		assert.ErrorIs(t, <-served, http.ErrServerClosed)
	})
	return "http://" + ln.Addr().String()
}

// TestSameLoop: fibers of a loop call a server on the same loop, which
// deadlocks net/http's client; 50 requests at once, each answered only
// once all 50 are in, with no goroutine started for any of them.
func TestSameLoop(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const n = 50
		var waiting []*core.Suspension
		var goroutines int
		base := serveOnLoop(t, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(waiting) == n-1 {
				goroutines = runtime.NumGoroutine()
				for _, s := range waiting {
					s.Resume(nil)
				}
			} else {
				s := l.Suspension()
				waiting = append(waiting, s)
				if _, err := s.Suspend(); err != nil {
					return
				}
			}
			fmt.Fprintf(w, "hello %s", r.URL.Path)
		}))
		tr := &httpclient.Transport{Loop: l, MaxIdleConnsPerHost: n}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		var bodies [n]string
		var before int
		onFiber(t, l, func() {
			before = runtime.NumGoroutine()
			left := n
			all := l.Suspension()
			for i := range n {
				l.Defer(func(core.CallbackID) {
					resp, err := client.Get(fmt.Sprintf("%s/%d", base, i))
					if assert.NoError(t, err) {
						b, err := io.ReadAll(resp.Body)
						assert.NoError(t, err)
						resp.Body.Close()
						bodies[i] = string(b)
					}
					if left--; left == 0 {
						all.Resume(nil)
					}
				})
			}
			_, err := all.Suspend()
			assert.NoError(t, err)
		})
		for i, b := range bodies {
			assert.Equal(t, fmt.Sprintf("hello /%d", i), b)
		}
		// The fibers themselves are goroutines: 50 clients and 50
		// handlers, and nothing more than a few the runtime may start;
		// the netpoll driver waits for each armed descriptor on a helper
		// goroutine of its own (its doc), one per conn at either end.
		allowed := 2*n + 4
		if strings.HasSuffix(t.Name(), "/netpoll") {
			allowed += 2 * n
		}
		assert.LessOrEqual(t, goroutines-before, allowed, "goroutines: %d before, %d with %d requests in", before, goroutines, n)
		assert.Equal(t, n, tr.IdleConns())
	})
}

// TestSwitchingProtocols: a 101's body is the connection, to write and
// read, as net/http's.
func TestSwitchingProtocols(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		base := serveOnLoop(t, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
			brw.Flush()
			line, _ := brw.ReadString('\n')
			brw.WriteString("echo: " + line)
			brw.Flush()
		}))
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				tr := &httpclient.Transport{Loop: l}
				c.run(t, l, func() {
					req, _ := http.NewRequest("GET", base+"/", nil)
					req.Header.Set("Connection", "Upgrade")
					req.Header.Set("Upgrade", "echo")
					resp, err := tr.RoundTrip(req)
					require.NoError(t, err)
					require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
					rw, ok := resp.Body.(io.ReadWriteCloser)
					require.True(t, ok, "the body of a 101 is writable")
					defer rw.Close()
					_, err = io.WriteString(rw, "over the upgraded conn\n")
					require.NoError(t, err)
					line, err := bufio.NewReader(rw).ReadString('\n')
					require.NoError(t, err)
					assert.Equal(t, "echo: over the upgraded conn\n", line)
				})
				assert.Zero(t, tr.IdleConns())
			})
		}
	})
}
