//go:build unix && !solaris

package main

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A port that another listener serves is refused with one loop and with
// several: SO_REUSEPORT must not let the loops join someone else's port,
// even one that shares its port the same way (another echo with --loops).
func TestEchoPortInUse(t *testing.T) {
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	busy, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, n := range []int{1, 2} {
		g, err := startEcho("", busy.Addr().String(), n, echoOptions{})
		if err == nil {
			g.close()
			t.Fatalf("--loops %d: echo started on %s, which another listener serves", n, busy.Addr())
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("--loops %d: %v, want EADDRINUSE", n, err)
		}
	}
}
