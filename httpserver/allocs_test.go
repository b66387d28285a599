//go:build unix || windows

package httpserver

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// A keep-alive request of wrk's shape, answered by a handler that
// allocates nothing, allocates what the net/http API needs and no more:
// the request with its context, URL and the room of its header's values
// (one object), its header map, and the string its fields point into.
// The client is a raw conn whose reads and writes allocate nothing, so
// that the count is the server's. It sends 16 requests at a time, so
// that what a driver may allocate for a wait, and the runtime's own
// allocations, fall within the slack of a batch.
//
// The loops have no blocked-call report: its sampler takes a goroutine
// profile, which allocates, when a run holds the loop 5 ms, as a run
// descheduled on a busy machine can.
func TestAllocsPerRequest(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			allocsPerRequest(t, testloop.New(t, name, eventloop.WithBlockedReport(nil)))
		})
	}
}

func allocsPerRequest(t *testing.T, l *core.Loop) {
	ts := serve(t, l, &Server{Handler: http.HandlerFunc(helloString)})
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const depth, perRequest, slack = 16, 3, 4
	roundTrip := helloRoundTrip(t, c, depth)
	roundTrip() // the conn's own allocations are not the requests'
	if n := testing.AllocsPerRun(200, roundTrip); n > depth*perRequest+slack {
		t.Errorf("%v allocations for %d requests, want %d at most (%d a request, %d for the batch)", n, depth, depth*perRequest+slack, perRequest, slack)
	}
}
