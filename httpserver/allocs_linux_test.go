//go:build linux && !386 && !s390x

package httpserver

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
	"golang.org/x/sys/unix"
)

// A connection of one request (Connection: close), whose handler writes
// its body and never asks for the header, makes at most connAllocs
// objects on the server, the request's 3 included (testing.AllocsPerRun
// truncates the mean, so a rare allocation of the loop's own does not
// count). The client makes its system calls itself, which allocates
// nothing, so that the count is the server's. Linux only: elsewhere
// accept makes more (see socket's accept_linux.go).
//
// The loops have no blocked-call report, as in TestAllocsPerRequest.
func TestAllocsPerConnection(t *testing.T) {
	const connAllocs = 17
	watchdog(t, time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			n := allocsPerConnection(t, testloop.New(t, name, eventloop.WithBlockedReport(nil)))
			if n > connAllocs {
				t.Errorf("%v allocations a connection, want %d at most", n, connAllocs)
			}
		})
	}
}

func allocsPerConnection(t *testing.T, l *core.Loop) float64 {
	ts := serve(t, l, &Server{Handler: http.HandlerFunc(helloString)})
	ap := netip.MustParseAddrPort(ts.addr)
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	req := []byte("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
	buf := make([]byte, 4096)
	oneConn := func() {
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(s)
		if err := unix.Connect(s, sa); err != nil {
			t.Fatal(err)
		}
		if _, err := unix.Write(s, req); err != nil {
			t.Fatal(err)
		}
		for {
			n, err := unix.Read(s, buf)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	oneConn() // the loop's and the listener's own allocations are not the conns'
	return testing.AllocsPerRun(100, oneConn)
}
