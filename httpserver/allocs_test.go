//go:build unix || windows

package httpserver

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A keep-alive request of wrk's shape, answered by a handler that
// allocates nothing, allocates what the net/http API needs and no more:
// the request with its context, URL and the room of its header's values
// (one object), its header map, and the string its fields point into.
// The client is a raw conn whose reads and writes allocate nothing, so
// that the count is the server's.
func TestAllocsPerRequest(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) { allocsPerRequest(t, l) })
}

func allocsPerRequest(t *testing.T, l *core.Loop) {
	ts := serve(t, l, &Server{Handler: http.HandlerFunc(helloString)})
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip := helloRoundTrip(t, c)
	roundTrip() // the conn's own allocations are not the request's
	if n := testing.AllocsPerRun(2000, roundTrip); n > 3 {
		t.Errorf("%v allocations a request, want 3 at most", n)
	}
}
