//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
)

// The benchmarks carry the names every driver uses, so that their figures
// line up in one table. Over libkqueue they measure libkqueue and cgo as
// much as the driver (see doc.go).

func benchDriver(b *testing.B, newDriver func() (*kqueue.Driver, error)) *kqueue.Driver {
	b.Helper()
	d, err := newDriver()
	if err != nil {
		b.Fatalf("new driver: %v", err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}

func BenchmarkWaitOneReady(b *testing.B) {
	d := benchDriver(b, kqueue.New)
	f := newFds(b)
	a, peer := f.pair()
	write(b, peer, "x")
	if err := d.Register(a, 1, core.Read); err != nil {
		b.Fatal(err)
	}
	ev := make([]core.Event, 64)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := d.Wait(ev, 0); n != 1 || err != nil {
			b.Fatalf("Wait: n=%d err=%v", n, err)
		}
	}
}

func BenchmarkWait1000Watched1Ready(b *testing.B) {
	d := benchDriver(b, kqueue.New)
	f := newFds(b)
	for i := range 1000 {
		a, peer := f.pair()
		if i == 500 {
			write(b, peer, "x")
		}
		if err := d.Register(a, core.Token(i), core.Read); err != nil {
			b.Fatal(err)
		}
	}
	ev := make([]core.Event, 64)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := d.Wait(ev, 0); n != 1 || err != nil {
			b.Fatalf("Wait: n=%d err=%v", n, err)
		}
	}
}

// BenchmarkWakeupLatency is the round trip of a Wakeup from another
// goroutine to a blocked Wait(-1) returning, once per waker.
func BenchmarkWakeupLatency(b *testing.B) {
	for _, w := range wakers {
		b.Run(w.name, func(b *testing.B) {
			d := benchDriver(b, w.new)
			ev := make([]core.Event, 8)
			kick := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range kick {
					if err := d.Wakeup(); err != nil {
						b.Error(err)
						return
					}
				}
			}()
			b.ReportAllocs()
			for b.Loop() {
				kick <- struct{}{}
				if _, err := d.Wait(ev, -1); err != nil {
					b.Fatal(err)
				}
			}
			close(kick)
			<-done
		})
	}
}

func BenchmarkRegisterDeregister(b *testing.B) {
	for _, in := range []core.Interest{core.Read, core.Read | core.Write} {
		b.Run(in.String(), func(b *testing.B) {
			d := benchDriver(b, kqueue.New)
			f := newFds(b)
			a, _ := f.pair()
			b.ReportAllocs()
			for b.Loop() {
				if err := d.Register(a, 1, in); err != nil {
					b.Fatal(err)
				}
				if err := d.Deregister(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
