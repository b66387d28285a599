//go:build unix

package socket

import (
	"errors"
	"net"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// Out of descriptors, Accept returns EMFILE as a temporary net.Error and
// the listener backs off (5 ms, doubling) instead of spinning: each retry
// at once waits at least the back-off that the failure before it set, so
// a caller that retries at once gets a handful of errors, not thousands.
// Only lower bounds are asserted (a back-off must not end early; a loaded
// runner's ending late is no failure). The listener keeps listening: with
// descriptors back, the waiting connection is accepted. The calls come from the test's
// goroutine, the loop not running: the main path. Unix only: it runs out
// of descriptors by lowering RLIMIT_NOFILE, and Windows has no limit of a
// process's sockets to lower.
func TestAcceptBacksOffOutOfDescriptors(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		// One round first: the listener's watcher and registration exist
		// before descriptors run out.
		warm, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if c, err := ln.AcceptConn(); err != nil {
			t.Fatal(err)
		} else {
			c.Close()
		}
		warm.Close()
		waiting, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer waiting.Close()

		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		// The lowest free number becomes the limit: no new descriptor.
		free, err := unix.Dup(0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(free)
		low := lim
		// Cur is an int64 on some systems, a uint64 on others.
		if f := reflect.ValueOf(&low.Cur).Elem(); f.CanUint() {
			f.SetUint(uint64(free))
		} else {
			f.SetInt(int64(free))
		}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
			t.Skipf("cannot lower RLIMIT_NOFILE: %v", err)
		}
		restored := false
		restore := func() {
			if !restored {
				restored = true
				if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
					t.Fatal(err)
				}
			}
		}
		defer restore()

		prev := time.Now() // the start of the call that set the back-off
		_, err = ln.AcceptConn()
		var ne net.Error
		if !errors.Is(err, syscall.EMFILE) || !errors.As(err, &ne) || !ne.Temporary() {
			restore()
			t.Fatalf("Accept out of descriptors: %v, want a temporary EMFILE", err)
		}
		// The failure of a call sets a back-off that starts during that
		// call, so the next call cannot end before the start of the one
		// before plus the back-off: 5, 10, 20, 40, 80 ms.
		var took []time.Duration
		for i, want := 0, backoffMin; i < 5; i, want = i+1, 2*want {
			start := time.Now()
			if _, err := ln.AcceptConn(); !errors.Is(err, syscall.EMFILE) {
				restore()
				t.Fatalf("Accept %d: %v", i+2, err)
			}
			end := time.Now()
			took = append(took, end.Sub(start))
			if d := end.Sub(prev); d < want {
				t.Errorf("retry %d ended %v after the start of the call before it, before its back-off of %v", i+1, d, want)
			}
			prev = start
		}
		restore()
		t.Logf("retries took %v", took)
		c, err := ln.AcceptConn()
		if err != nil {
			t.Fatalf("Accept with descriptors back: %v", err)
		}
		c.Close()
	})
}
