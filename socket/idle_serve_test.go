//go:build unix

package socket

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The idle-connection target of a served conn (Conn.Serve): it waits
// holding no fiber and no read buffer, for at most 1 KiB of heap per
// connection. TestIdleConnections' client and server measure it the
// same way as a fiber blocked in Read, in a fresh server process.
const idleServedTarget = 1024

// idleServedFibers is the most fibers the server's loop may have live
// while its served conns wait: its own (the loop's, the one draining it,
// the accepting one, the one that guards the served conns) and none per
// conn.
const idleServedFibers = 8

// idleServedBudget is the guard against regressions for a served conn,
// from what was measured (700 to 790 B; there are no stacks to vary);
// netpoll holds a helper goroutine, a dup and an *os.File per watched
// descriptor, as for a fiber in Read.
func idleServedBudget(driver string) float64 {
	if driver == "netpoll" {
		return idleServedTarget + 3072 + 2048
	}
	return 896
}

// TestIdleServedConnections is TestIdleConnections for served conns.
func TestIdleServedConnections(t *testing.T) {
	watchdog(t, 10*time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) { idleClient(t, name, true) })
	}
}

// idleServe serves c in the server of TestIdleServedConnections: an echo,
// with ended called at its last call; the last conn measures once it
// waits.
func idleServe(t *testing.T, l *core.Loop, c *Conn, last bool, measure, ended func()) {
	if err := c.Serve(func(c *Conn, in []byte, err error) int {
		if err != nil {
			ended()
			return 0
		}
		c.Write(in)
		return len(in)
	}); err != nil {
		t.Error(err)
	}
	if last {
		l.Defer(func(core.CallbackID) { measure() })
	}
}
