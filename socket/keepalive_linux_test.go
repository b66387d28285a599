//go:build linux

package socket

import (
	"net"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// SetKeepAlivePeriod takes 0 and negative periods as net's does: 0 is the
// default (15 s), a negative period changes nothing.
func TestKeepAlivePeriodZeroAndNegative(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c, err := Dial(l, "tcp4", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		peer, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		for _, step := range []struct {
			d    time.Duration
			want int
		}{{30 * time.Second, 30}, {0, 15}, {-1, 15}, {1500 * time.Millisecond, 2}, {-time.Hour, 2}} {
			if err := c.SetKeepAlivePeriod(step.d); err != nil {
				t.Fatalf("SetKeepAlivePeriod(%v): %v", step.d, err)
			}
			if got := option(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); got != step.want {
				t.Errorf("after SetKeepAlivePeriod(%v): TCP_KEEPIDLE %d, want %d", step.d, got, step.want)
			}
		}
	})
}
