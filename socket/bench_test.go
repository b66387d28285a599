//go:build unix || windows

package socket

import (
	"net"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
)

// BenchmarkFiberPingPong: two fibers of one loop bounce a byte over a
// socketpair. Every Read finds the socket empty and suspends, so an
// operation is one Write and one suspending Read on each side: the fiber
// path end to end (EAGAIN, the kept watcher, suspend, wake, retry). It
// allocates nothing once the conns exist.
func BenchmarkFiberPingPong(b *testing.B) {
	for _, name := range drivers() {
		b.Run(name, func(b *testing.B) {
			l, err := eventloop.NewWithDriver(name)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			x, y := pair(b, l)
			defer x.Close()
			defer y.Close()
			n := b.N
			l.Defer(func(core.CallbackID) {
				buf := make([]byte, 1)
				for range n {
					if _, err := y.Read(buf); err != nil {
						b.Error(err)
						return
					}
					if _, err := y.Write(buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
			// The first round makes the watchers and fibers; the timer
			// starts after it.
			l.Defer(func(core.CallbackID) {
				buf := make([]byte, 1)
				for i := range n {
					if i == 1 {
						b.ResetTimer()
						b.ReportAllocs()
					}
					if _, err := x.Write(buf); err != nil {
						b.Error(err)
						return
					}
					if _, err := x.Read(buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if err := l.Run(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
		})
	}
}

// BenchmarkFiberPacketPingPong is BenchmarkFiberPingPong for datagrams:
// two fibers bounce a UDP datagram with WriteToUDPAddrPort and
// ReadFromUDPAddrPort, every read suspending. It allocates nothing once
// the sockets exist.
func BenchmarkFiberPacketPingPong(b *testing.B) {
	for _, name := range drivers() {
		b.Run(name, func(b *testing.B) {
			l, err := eventloop.NewWithDriver(name)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			x, y := listenOurs(b, l, "udp4"), listenOurs(b, l, "udp4")
			xa, ya := x.LocalAddr().(*net.UDPAddr).AddrPort(), y.LocalAddr().(*net.UDPAddr).AddrPort()
			n := b.N
			l.Defer(func(core.CallbackID) {
				buf := make([]byte, 8)
				for range n {
					if _, _, err := y.ReadFromUDPAddrPort(buf); err != nil {
						b.Error(err)
						return
					}
					if _, err := y.WriteToUDPAddrPort(buf, xa); err != nil {
						b.Error(err)
						return
					}
				}
			})
			l.Defer(func(core.CallbackID) {
				buf := make([]byte, 8)
				for i := range n {
					if i == 1 {
						b.ResetTimer()
						b.ReportAllocs()
					}
					if _, err := x.WriteToUDPAddrPort(buf, ya); err != nil {
						b.Error(err)
						return
					}
					if _, _, err := x.ReadFromUDPAddrPort(buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if err := l.Run(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
		})
	}
}
