//go:build linux && !386 && !s390x

package socket

import (
	"net"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// An accept on a listener bound to one address makes three objects: the
// Conn, the record it points to and the conn's two addresses
// (acceptedAddrs). accept4 writes the peer's address into the caller's
// frame, not into the three objects unix.Accept4 would make. The clients
// have dialed before the count begins, so the accepts do not wait (a wait
// would allocate its watch, which the bound's half an object leaves room
// for once in the runs).
func TestAcceptAllocatesTheConnAndItsAddresses(t *testing.T) {
	const runs, bound = 20, 3.5
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		for range runs + 1 {
			c, err := net.Dial("tcp4", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
		}
		conns := make([]*Conn, 0, runs+1)
		n := testing.AllocsPerRun(runs, func() {
			c, err := ln.AcceptConn()
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		})
		for _, c := range conns {
			c.Close()
		}
		if n > bound {
			t.Errorf("%v allocations an accept, want %v at most", n, bound)
		}
	})
}
