//go:build unix || windows

package httpserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// An idle keep-alive connection holds no fiber (without TLS): it waits as
// a served socket conn, and its next request is served in the fiber its
// bytes come in. So do new connections that have sent nothing yet. The
// loop's fibers live do not grow with them, and they are all served again.
func TestIdleConnsHoldNoFiber(t *testing.T) {
	watchdog(t, time.Minute)
	const n = 50
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		fibersLive := func() int {
			live := make(chan int, 1)
			l.Post(func() { live <- l.Stats().FibersLive })
			return <-live
		}
		const req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
		// The fibers live once the server has served (its accept loop
		// runs, and the guard of the loop's served conns) and nothing is
		// open.
		if o := exchange(t, ts.addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 0); o.status != 200 {
			t.Fatalf("%+v", o)
		}
		ts.waitOpen(t, 0)
		before := fibersLive()
		conns := make([]*rawConn, n)
		for i := range conns {
			conns[i] = dialRaw(t, ts.addr)
		}
		ts.waitOpen(t, n)
		if live := fibersLive(); live > before {
			t.Errorf("%d fibers live with %d new connections waiting, %d before", live, n, before)
		}
		for round := range 2 {
			for _, rc := range conns {
				rc.send(t, req)
				if resp := rc.response(t, "GET"); resp.StatusCode != http.StatusOK || bodyString(t, resp) != "Hello, World!" {
					t.Fatalf("round %d: %v", round, resp.Status)
				}
			}
			if live := fibersLive(); live > before {
				t.Errorf("round %d: %d fibers live with %d keep-alive connections idle, %d before", round, live, n, before)
			}
		}
	})
}
