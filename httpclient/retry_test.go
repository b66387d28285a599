package httpclient_test

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// staleServer answers the first request of each connection and keeps it
// open, and closes it, unanswered, at its second: every connection a
// client keeps idle is one the server will drop under its next request.
// The first two connections' answers wait until both have a request, so
// that a client has two connections idle afterwards.
type staleServer struct {
	url  string
	mu   sync.Mutex
	reqs int
	both chan struct{}
	n    int
}

func newStaleServer(t *testing.T) *staleServer {
	s := &staleServer{both: make(chan struct{})}
	s.url = "http://" + rawServer(t, s.serve) + "/"
	return s
}

func (s *staleServer) serve(c net.Conn) {
	br := bufio.NewReader(c)
	if _, err := http.ReadRequest(br); err != nil {
		return
	}
	s.mu.Lock()
	s.reqs++
	if s.n++; s.n == 2 {
		close(s.both)
	}
	first := s.n <= 2
	s.mu.Unlock()
	if first {
		select {
		case <-s.both:
		case <-time.After(10 * time.Second): // a hang guard: the case then fails on its count
		}
	}
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
		return
	}
	if _, err := http.ReadRequest(br); err == nil {
		s.mu.Lock()
		s.reqs++
		s.mu.Unlock()
	}
}

func (s *staleServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs
}

// retryOnStale makes two connections idle with two requests at once, then
// sends a third request, which meets the stale ones; it returns the third
// one's outcome and the requests the server got.
func retryOnStale(t *testing.T, rt http.RoundTripper) (outcome, int) {
	s := newStaleServer(t)
	client := &http.Client{Transport: rt}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := do(client, mustGet(t, s.url))
			assert.Equal(t, "ok", got.Body, "the first two requests")
		}()
	}
	wg.Wait()
	got := do(client, mustGet(t, s.url))
	return got, s.requests()
}

// TestRetryWhileReused: a GET that meets a reused connection the server
// dropped is sent again, on another connection, for as long as the
// connection it met was a reused one, as net/http's Transport does: with
// two stale connections idle, the third request fails on both, then is
// answered on a new one.
func TestRetryWhileReused(t *testing.T) {
	std := &http.Transport{}
	want, wantReqs := retryOnStale(t, std)
	std.CloseIdleConnections()
	require.Equal(t, "ok", want.Body, "net/http's outcome: %+v", want)
	require.Equal(t, 5, wantReqs, "requests the server got from net/http's client")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		tr := &httpclient.Transport{Loop: l}
		defer tr.CloseIdleConnections()
		got, reqs := retryOnStale(t, tr)
		assert.Equal(t, want, got)
		assert.Equal(t, wantReqs, reqs, "requests the server got")
	})
}
