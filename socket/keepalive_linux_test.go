//go:build linux

package socket

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// SetKeepAlivePeriod takes 0 and negative periods as net's does: 0 is the
// default (15 s), a negative period changes nothing. It sets the probe
// interval to the idle time, as its doc says (net's, since Go 1.23, sets
// the idle time alone).
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
			if got := option(t, c, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL); got != step.want {
				t.Errorf("after SetKeepAlivePeriod(%v): TCP_KEEPINTVL %d, want %d (the probe interval, as its doc says)", step.d, got, step.want)
			}
		}
	})
}

// New TCP conns have keep-alives as net's do: a dialed one on, every 15 s;
// an accepted one under ListenConfig.KeepAlive 0 the same, under 30 s
// every 30 s, under a negative period off.
func TestKeepAliveOfNewConns(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, step := range []struct {
			keepAlive time.Duration
			on, idle  int // idle: TCP_KEEPIDLE, looked at only when on
		}{{0, 1, 15}, {30 * time.Second, 1, 30}, {-1, 0, 0}} {
			lc := ListenConfig{KeepAlive: step.keepAlive}
			ln, err := lc.Listen(context.Background(), l, "tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
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
			for _, conn := range []struct {
				name     string
				c        *Conn
				on, idle int
			}{{"dialed", c, 1, 15}, {"accepted", peer.(*Conn), step.on, step.idle}} {
				on := option(t, conn.c, unix.SOL_SOCKET, unix.SO_KEEPALIVE)
				if on != conn.on {
					t.Errorf("ListenConfig.KeepAlive %v: %s conn: SO_KEEPALIVE %d, want %d", step.keepAlive, conn.name, on, conn.on)
				}
				if idle := option(t, conn.c, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); on != 0 && idle != conn.idle {
					t.Errorf("ListenConfig.KeepAlive %v: %s conn: TCP_KEEPIDLE %d, want %d", step.keepAlive, conn.name, idle, conn.idle)
				}
			}
		}
	})
}
