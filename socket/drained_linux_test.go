//go:build linux

package socket

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// A fiber serving a request-response peer makes one read(2) per request:
// the Read after a short one waits for readiness instead of calling
// read(2) to hear EAGAIN. The peer is a blocking socket in a goroutine,
// which makes exactly one read(2) and one write(2) per round trip, so the
// process's read count (/proc/self/io: syscr) is two per round trip with
// the rule and three without it.
func TestShortReadSavesTheEAGAINRead(t *testing.T) {
	watchdog(t, 30*time.Second)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.SetNonblock(fds[0], true); err != nil {
			t.Fatal(err)
		}
		srv := &Conn{fd: testFD(t, l, fds[0], unix.AF_UNIX, unix.SOCK_STREAM, "unix")}
		defer srv.Close()
		peer := fds[1] // blocking
		defer unix.Close(peer)

		const rounds = 2000
		l.Defer(func(core.CallbackID) {
			buf := make([]byte, 512)
			for {
				n, err := srv.Read(buf)
				if err != nil {
					return // the peer's close
				}
				if _, err := srv.Write(buf[:n]); err != nil {
					t.Error(err)
					return
				}
			}
		})
		stop := runLoop(t, l)
		defer stop()

		msg := []byte("ping, sixty-four bytes or so, well under the server's buffer..")
		reply := make([]byte, len(msg))
		roundTrip := func() {
			if _, err := unix.Write(peer, msg); err != nil {
				t.Fatal(err)
			}
			for got := 0; got < len(reply); {
				n, err := unix.Read(peer, reply[got:])
				if err != nil || n == 0 {
					t.Fatalf("peer read: %d, %v", n, err)
				}
				got += n
			}
		}
		for range 100 { // warm up: the watcher made, the fiber parked
			roundTrip()
		}
		before := syscr(t)
		for range rounds {
			roundTrip()
		}
		reads := float64(syscr(t)-before) / rounds
		t.Logf("%.3f read(2) calls per round trip (the peer's one and the server's)", reads)
		if reads > 2.25 {
			t.Errorf("%.3f read(2) calls per round trip, want 2 (one each side): the server's Read calls read(2) after a short read", reads)
		}
		unix.Shutdown(peer, unix.SHUT_WR)
	})
}

// syscr is the number of read(2)-like calls the process has made.
func syscr(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("/proc/self/io has no syscr")
	return 0
}
