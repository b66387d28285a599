//go:build unix

package socket

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/net/nettest"
)

// Unix sockets, which only Unix has here (sys_windows.go says why).

// TestNetConnUnix is TestNetConn on Unix conns.
func TestNetConnUnix(t *testing.T) {
	watchdog(t, 60*time.Second)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runLoop(t, l)
		dir := t.TempDir()
		n := 0
		nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
			n++
			return makePipe(l, "unix", filepath.Join(dir, "s"+string(rune('a'+n))))
		})
	})
}

// A unix listener closed while a goroutine waits in Accept wakes it, and
// its socket file is gone, as with net's UnixListener.
func TestUnixListenerRemovesItsFile(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "unix", t.TempDir()+"/s")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(ln.Addr().String()); err != nil {
			t.Fatalf("no socket file while listening: %v", err)
		}
		runLoop(t, l)
		res := make(chan error, 1)
		go func() {
			_, err := ln.Accept()
			res <- err
		}()
		if err := goroutineWaits(l); err != nil {
			t.Fatal(err)
		}
		ln.Close()
		if err := <-res; !isClosedOp(err, "accept") {
			t.Fatalf("Accept: %v", err)
		}
		if _, err := os.Stat(ln.Addr().String()); !os.IsNotExist(err) {
			t.Errorf("the socket file is left after Close: %v", err)
		}
	})
}
