package httpclient_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedServer is an httptest server of upstream() that counts the
// connections it accepts.
func countedServer(t *testing.T) (*httptest.Server, *connCounter) {
	var cc connCounter
	ts := httptest.NewUnstartedServer(upstream())
	ts.Config.ConnState = cc.hook
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, &cc
}

// getBody makes a GET and reads the body to its end (or, with n >= 0,
// reads n bytes and closes).
func getBody(t testing.TB, client *http.Client, url string, n int) string {
	resp, err := client.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return ""
	}
	defer resp.Body.Close()
	var b []byte
	if n < 0 {
		b, err = io.ReadAll(resp.Body)
	} else {
		b = make([]byte, n)
		_, err = io.ReadFull(resp.Body, b)
	}
	if err != nil {
		t.Errorf("GET %s: body: %v", url, err)
	}
	return string(b)
}

// TestKeepAlive: a body read to its end gives its connection back, one
// closed early, a Connection: close either way or DisableKeepAlives do
// not; MaxIdleConnsPerHost bounds what is kept.
func TestKeepAlive(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		plain := func() *httpclient.Transport { return &httpclient.Transport{} }
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				cases := []struct {
					name  string
					tr    func() *httpclient.Transport
					url   string
					n     int // bytes read before Close; -1: all
					conns int // for 5 requests
				}{
					{"read to the end", plain, "/hello", -1, 1},
					{"big body read to the end", plain, "/big", -1, 1},
					{"chunked read to the end", plain, "/stream", -1, 1},
					{"closed early", plain, "/medium", 10, 5},
					{"no body", plain, "/nocontent", -1, 1},
					{"server says close", plain, "/close", -1, 5},
					{"DisableKeepAlives", func() *httpclient.Transport { return &httpclient.Transport{DisableKeepAlives: true} }, "/hello", -1, 5},
				}
				for _, tc := range cases {
					ts, cc := countedServer(t)
					tr := tc.tr()
					tr.Loop = l
					client := &http.Client{Transport: tr}
					c.run(t, l, func() {
						for range 5 {
							getBody(t, client, ts.URL+tc.url, tc.n)
						}
					})
					// A connection taken from the pool and given back is
					// counted once: one kept, or none.
					kept := 0
					if tc.conns == 1 {
						kept = 1
					}
					assert.Equal(t, kept, tr.IdleConns(), "%s: connections kept", tc.name)
					tr.CloseIdleConnections()
					assert.Equal(t, tc.conns, cc.count(), tc.name)
					// Every connection the Transport let go reaches the
					// server closed: a body closed early closes its socket.
					cc.waitClosed(tc.conns)
				}
			})
		}
	})
}

// TestPoolBounds: MaxIdleConnsPerHost keeps that many of a burst, and
// MaxConnsPerHost holds the requests over it until a connection is free,
// fibers and goroutines alike.
func TestPoolBounds(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const burst = 8
		var inFlight, most atomic.Int32
		var gate atomic.Pointer[chan struct{}]
		var arrived sync.WaitGroup
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			arrived.Done()
			<-*gate.Load()
			inFlight.Add(-1)
			io.WriteString(w, "ok")
		}))
		defer ts.Close()
		for _, limit := range []int{0, 2} {
			most.Store(0)
			release := make(chan struct{})
			gate.Store(&release)
			tr := &httpclient.Transport{Loop: l, MaxIdleConnsPerHost: 3, MaxConnsPerHost: limit}
			client := &http.Client{Transport: tr}
			first := burst
			if limit > 0 {
				first = limit
			}
			arrived.Add(first)
			var done sync.WaitGroup
			for i := range burst {
				done.Add(1)
				go func() {
					defer done.Done()
					call := func() { assert.Equal(t, "ok", getBody(t, client, ts.URL, -1)) }
					if i%2 == 0 {
						onFiber(t, l, call)
					} else {
						call()
					}
				}()
			}
			arrived.Wait() // every request under the limit is at the server
			arrived.Add(burst - first)
			close(release)
			done.Wait()
			want := int32(burst)
			if limit > 0 {
				want = int32(limit)
			}
			assert.Equal(t, want, most.Load(), "most requests at the server at once, MaxConnsPerHost %d", limit)
			idle := tr.IdleConns()
			assert.Equal(t, min(3, int(want)), idle, "connections kept, MaxConnsPerHost %d", limit)
			tr.CloseIdleConnections()
		}
	})
}

// TestMaxConnsPerHostSlotGivenBack: a connection that is not kept (the
// server closed it) gives its slot of MaxConnsPerHost back, so requests
// made one after another never wait for one.
func TestMaxConnsPerHostSlotGivenBack(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				ts, cc := countedServer(t)
				tr := &httpclient.Transport{Loop: l, MaxConnsPerHost: 1}
				defer tr.CloseIdleConnections()
				// A slot never given back holds the next request: fail it.
				client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
				c.run(t, l, func() {
					for range 3 {
						getBody(t, client, ts.URL+"/close", -1)
					}
				})
				assert.Equal(t, 3, cc.count())
			})
		}
	})
}

// TestMaxConnsPerHostAfterOneEnds: when one of two connections at
// MaxConnsPerHost 2 ends unkept, the host still has one: of two new
// requests one dials and the other waits, so the server never sees more
// than two at once.
func TestMaxConnsPerHostAfterOneEnds(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var mu sync.Mutex
		inFlight, most := 0, 0
		gates := map[string]chan struct{}{}
		gate := func(id string) chan struct{} {
			mu.Lock()
			defer mu.Unlock()
			if gates[id] == nil {
				gates[id] = make(chan struct{})
			}
			return gates[id]
		}
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			<-gate(r.URL.Query().Get("id"))
			mu.Lock()
			inFlight--
			mu.Unlock()
			w.Header().Set("Connection", "close") // no connection is kept
			io.WriteString(w, "ok")
		}))
		defer ts.Close()
		tr := &httpclient.Transport{Loop: l, MaxConnsPerHost: 2}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		done := map[string]chan struct{}{}
		get := func(id string) {
			ch := make(chan struct{})
			done[id] = ch
			go func() {
				defer close(ch)
				assert.Equal(t, "ok", getBody(t, client, ts.URL+"/?id="+id, -1))
			}()
		}
		// until waits for cond on the server's and the pool's counts (a
		// hang guard of a minute).
		until := func(what string, cond func(inFlight, waiters int) bool) {
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
				mu.Lock()
				n := inFlight
				mu.Unlock()
				if cond(n, tr.Waiters()) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("never: %s", what)
				}
			}
		}
		get("1")
		get("2")
		until("two requests at the server", func(n, _ int) bool { return n == 2 })
		close(gate("1"))
		<-done["1"]
		get("3")
		get("4")
		until("one more at the server and one waiting, or two more at the server",
			func(n, w int) bool { return n == 2 && w == 1 || n == 3 })
		for _, id := range []string{"2", "3", "4"} {
			close(gate(id))
			<-done[id]
		}
		mu.Lock()
		seen := most
		mu.Unlock()
		assert.Equal(t, 2, seen, "most requests at the server at once under MaxConnsPerHost 2")
	})
}

// TestMaxIdleConnsAfterAHostEmptied: MaxIdleConns evicts the oldest idle
// connection across hosts also when a host's list was emptied by an
// earlier eviction (the pool keeps its key with nothing in it).
func TestMaxIdleConnsAfterAHostEmptied(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				a, ca := countedServer(t)
				b, cb := countedServer(t)
				tr := &httpclient.Transport{Loop: l, MaxIdleConns: 1}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				c.run(t, l, func() {
					getBody(t, client, a.URL+"/hello", -1)
					getBody(t, client, b.URL+"/hello", -1) // evicts a's
					getBody(t, client, a.URL+"/hello", -1) // a new one; evicts b's
				})
				assert.Equal(t, 1, tr.IdleConns())
				ca.waitClosed(1)
				cb.waitClosed(1)
				assert.Equal(t, 2, ca.count())
				assert.Equal(t, 1, cb.count())
			})
		}
	})
}

// TestServerClosedIdle: a connection the server closed while it was idle
// is not used again: a POST, which cannot be retried, goes on a new one.
func TestServerClosedIdle(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				ts, cc := countedServer(t)
				tr := &httpclient.Transport{Loop: l}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				c.run(t, l, func() { getBody(t, client, ts.URL+"/hello", -1) })
				ts.CloseClientConnections()
				c.run(t, l, func() {
					resp, err := client.Post(ts.URL+"/echo", "text/plain", strings.NewReader("once"))
					require.NoError(t, err)
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					require.NoError(t, err)
					assert.Contains(t, string(b), "4 bytes")
				})
				assert.Equal(t, 2, cc.count())
			})
		}
	})
}

// TestIdleBounds: IdleConnTimeout closes a connection left idle that
// long (the server sees it go), and MaxIdleConns keeps that many across
// hosts, closing the one idle the longest.
func TestIdleBounds(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				closed := make(chan struct{}, 4)
				ts := httptest.NewUnstartedServer(upstream())
				ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
					if s == http.StateClosed {
						closed <- struct{}{}
					}
				}
				ts.Start()
				defer ts.Close()
				tr := &httpclient.Transport{Loop: l, IdleConnTimeout: 20 * time.Millisecond}
				client := &http.Client{Transport: tr}
				c.run(t, l, func() { getBody(t, client, ts.URL+"/hello", -1) })
				<-closed // by the timeout: nothing else closes it
				assert.Zero(t, tr.IdleConns())

				a, b := httptest.NewServer(upstream()), httptest.NewServer(upstream())
				defer a.Close()
				defer b.Close()
				tr = &httpclient.Transport{Loop: l, MaxIdleConns: 2}
				defer tr.CloseIdleConnections()
				client = &http.Client{Transport: tr}
				c.run(t, l, func() {
					getBody(t, client, ts.URL+"/hello", -1)
					getBody(t, client, a.URL+"/hello", -1)
					getBody(t, client, b.URL+"/hello", -1)
				})
				<-closed // the first, idle the longest
				assert.Equal(t, 2, tr.IdleConns())
			})
		}
	})
}

// dropper is a server that reads each request to /drop whole and closes
// its connection without a word, counting the requests of each id; /hello
// answers, so that a connection waits in the pool for the next request.
type dropper struct {
	ts   *httptest.Server
	mu   sync.Mutex
	seen map[string]int
	ids  atomic.Int64
}

func newDropper(t *testing.T) *dropper {
	d := &dropper{seen: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/drop", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		d.mu.Lock()
		d.seen[r.URL.Query().Get("id")]++
		d.mu.Unlock()
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		c.Close()
	})
	d.ts = httptest.NewServer(mux)
	t.Cleanup(d.ts.Close)
	return d
}

// sends puts a connection in client's pool, then makes the request of
// mk on it (to /drop, which fails) and says how many times the server got
// that request.
func (d *dropper) sends(t testing.TB, client *http.Client, mk func(url string) *http.Request) int {
	getBody(t, client, d.ts.URL+"/hello", -1)
	id := fmt.Sprint(d.ids.Add(1))
	resp, err := client.Do(mk(d.ts.URL + "/drop?id=" + id))
	if err == nil {
		resp.Body.Close()
		t.Errorf("a request to a server that closes without a word: %s, want an error", resp.Status)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[id]
}

// onlyOnce is a body that cannot be had again (no GetBody).
type onlyOnce struct{ io.Reader }

// TestNoReplay: a request that failed on a reused connection after it was
// written, before any byte of an answer, is sent again only if it can be
// replayed (GET, HEAD, OPTIONS or TRACE, or an Idempotency-Key, and a
// body that can be had again), as net/http's Transport decides: a POST
// reaches the server once, a GET twice.
func TestNoReplay(t *testing.T) {
	d := newDropper(t)
	post := func(url string) *http.Request { return mustReq("POST", url, strings.NewReader("a body")) }
	cases := []struct {
		name string
		mk   func(url string) *http.Request
	}{
		{"POST", post},
		{"DELETE", func(url string) *http.Request { return mustReq("DELETE", url, nil) }},
		{"GET", get},
		{"POST with an Idempotency-Key", func(url string) *http.Request {
			r := post(url)
			r.Header.Set("Idempotency-Key", "k1")
			return r
		}},
		{"POST with an Idempotency-Key and a body read once", func(url string) *http.Request {
			r := mustReq("POST", url, onlyOnce{strings.NewReader("a body")})
			r.Header.Set("Idempotency-Key", "k2")
			return r
		}},
	}
	std := &http.Transport{}
	defer std.CloseIdleConnections()
	want := map[string]int{}
	for _, tc := range cases {
		want[tc.name] = d.sends(t, &http.Client{Transport: std}, tc.mk)
	}
	// Else the case is not the one meant: no reused connection, or a
	// net/http that retries otherwise.
	require.Equal(t, 2, want["GET"], "net/http's GET")
	require.Equal(t, 1, want["POST"], "net/http's POST")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				tr := &httpclient.Transport{Loop: l}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				for _, tc := range cases {
					var got int
					c.run(t, l, func() { got = d.sends(t, client, tc.mk) })
					assert.Equal(t, want[tc.name], got, "%s: requests the server got (from net/http's client: %d)", tc.name, want[tc.name])
				}
			})
		}
	})
}
