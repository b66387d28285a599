//go:build unix || windows

package socket

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testloop"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// The loops of the tests (package testloop): a subtest per driver, each
// with a fresh loop, run by a goroutine where the test needs it.
var (
	drivers    = testloop.Drivers
	eachDriver = testloop.EachDriver
	newLoop    = testloop.New
	watchdog   = testloop.Watchdog
	runLoop    = testloop.Run
)

// option reads an int socket option of c (getsockopt).
func option(t *testing.T, c *Conn, level, opt int) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var oerr error
	if err := rc.Control(func(fd uintptr) { v, oerr = sockoptInt(fd, level, opt) }); err != nil || oerr != nil {
		t.Fatalf("getsockopt: %v, %v", err, oerr)
	}
	return v
}

// testFD is newFD for a socket a test made; it fails the test on an error.
func testFD(t testing.TB, l *core.Loop, s, family, sotype int, network string) *netFD {
	t.Helper()
	fd, err := newFD(l, s, family, sotype, network)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}
