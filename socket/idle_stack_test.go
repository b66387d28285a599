package socket

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A conn that arrives alone, echoes a byte and then waits in Read keeps
// its fiber on the smallest stack (2 KiB) on epoll. Such a conn's fiber is
// the callback fiber that ran the tick before it (the loop runs a tick that
// cannot block on the callback fiber, core's tickHere), and the runtime
// never gives back a stack it doubled while the fiber idles: the epoll
// driver's calls in that tick (epoll_wait, and epoll_ctl for the new
// conn) are written to stay within what a 2 KiB stack lets frames reach.
// Other drivers' calls go deeper (cgo, the runtime's poller); their
// conns are held to a doubled stack at most (netpoll's to two: it keeps a
// goroutine per watched fd). On Windows the runtime's smallest stack is
// 8 KiB (2 KiB, plus 4 KiB for exception handling, which has no stack of
// its own there, rounded up to a power of two), so a conn is held to that.
//
// It measures in a process of its own, which starts goroutines on the
// smallest stack (GODEBUG=adaptivestackstart=0): the runtime otherwise
// starts them at the average size it saw at its last collection, which
// the tests run before this one would set.
func TestIdleFiberStackAfterAnEcho(t *testing.T) {
	if os.Getenv(stackHelperEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIdleFiberStackAfterAnEcho$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), stackHelperEnv+"=1", "GODEBUG=adaptivestackstart=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the measuring process: %v\n%s", err, out)
		}
		t.Logf("the measuring process:\n%s", out)
		return
	}
	watchdog(t, 2*time.Minute)
	const n = 1000
	raiseFDs(t, 4*n+64)
	eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		l.Defer(func(core.CallbackID) {
			for {
				c, err := ln.AcceptConn()
				if err != nil {
					return
				}
				// As the echo command serves a conn: a deferred callback.
				l.Defer(func(core.CallbackID) {
					defer c.Close()
					buf := make([]byte, 64)
					for {
						m, err := c.Read(buf)
						if err != nil {
							return
						}
						if _, err := c.Write(buf[:m]); err != nil {
							return
						}
					}
				})
			}
		})
		ran := make(chan error, 1)
		go func() { ran <- l.Run() }()

		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		conns := make([]net.Conn, 0, n)
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		b := []byte{1}
		for i := range n {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			c.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(b); err != nil {
				t.Fatalf("conn %d: %v", i, err)
			}
			if _, err := c.Read(b); err != nil {
				t.Fatalf("conn %d: %v", i, err)
			}
		}
		// A post runs once the last echo's fiber is back in Read.
		done := make(chan struct{})
		if err := l.Post(func() { close(done) }); err != nil {
			t.Fatal(err)
		}
		<-done
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perConn := float64(after.StackInuse-before.StackInuse) / n
		stack := 4096.0
		switch {
		case runtime.GOOS == "windows":
			stack = 8192 // the runtime's smallest there: stackMin plus stackSystem, rounded up
		case l.Driver().Name() == "epoll":
			stack = 2048
		case l.Driver().Name() == "netpoll":
			stack = 2 * 4096 // and a helper goroutine per watched fd
		}
		if raceEnabled {
			stack *= 2 // the race detector doubles frames and stacks
		}
		budget := stack + 256 // the loop's own fibers, a stack span part used
		t.Logf("%s: %.0f B of stacks a conn", l.Driver().Name(), perConn)
		if perConn > budget {
			t.Errorf("%s: %.0f B of stacks a conn that echoed once and waits in Read, want at most %.0f", l.Driver().Name(), perConn, budget)
		}
		for _, c := range conns {
			c.Close()
		}
		conns = nil
		ln.Close()
		l.Stop()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
	})
}

// stackHelperEnv marks the process that TestIdleFiberStackAfterAnEcho
// starts to measure in.
const stackHelperEnv = "EVENTLOOP_TEST_STACK_HELPER"
