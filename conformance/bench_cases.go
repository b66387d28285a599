//go:build unix || windows

package conformance

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

func benchCases() []benchCase {
	return []benchCase{
		{"WaitOneReady", benchWaitOneReady},
		{"Wait1000Watched1Ready", benchWait1000Watched1Ready},
		{"WakeupLatency", benchWakeupLatency},
		{"RegisterDeregister", benchRegisterDeregister},
	}
}

// benchWaitOneReady is a Wait that may block but finds one fd readable: the
// loop woken by I/O.
func benchWaitOneReady(b *testing.B, d core.Driver) {
	benchWaitReady(b, d, 1)
}

// benchWait1000Watched1Ready is the same among 999 idle fds: what a driver
// pays per watched fd that is not ready (poll(2) scans them all, epoll and
// kqueue do not).
func benchWait1000Watched1Ready(b *testing.B, d core.Driver) {
	benchWaitReady(b, d, 1000)
}

func benchWaitReady(b *testing.B, d core.Driver, watched int) {
	// Two fds a pair, and netpoll holds a dup of each watched one.
	dcNeedFds(b, uint64(3*watched+64))
	f := dcNewFds(b)
	ready := core.Token(watched+1) / 2
	for i := range watched {
		x, y := f.pair()
		if err := d.Register(x, core.Token(i+1), core.Read); err != nil {
			b.Fatalf("Register: %v", err)
		}
		if core.Token(i+1) == ready {
			dcWrite(b, y, "x")
		}
	}
	events := make([]core.Event, 64)
	benchExpectOne(b, d, events, ready) // arms what a driver arms lazily, before the clock starts
	for b.Loop() {
		benchExpectOne(b, d, events, ready)
	}
}

func benchExpectOne(b *testing.B, d core.Driver, events []core.Event, tok core.Token) {
	if n, err := d.Wait(events, time.Second); n != 1 || err != nil || events[0].Token != tok {
		b.Fatalf("Wait = %d, %v; want token %d alone", n, err, tok)
	}
}

// benchWakeupLatency is the round trip of a Wakeup from another goroutine
// to a Wait(-1) that blocks until it comes.
func benchWakeupLatency(b *testing.B, d core.Driver) {
	events := make([]core.Event, 8)
	kick := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range kick {
			if err := d.Wakeup(); err != nil {
				b.Error(err)
			}
		}
	}()
	defer func() { close(kick); <-done }()
	for b.Loop() {
		kick <- struct{}{}
		if _, err := d.Wait(events, -1); err != nil {
			b.Fatalf("Wait: %v", err)
		}
	}
}

// benchRegisterDeregister is the cost of watching an fd for the length of
// one request, for each interest a driver may treat apart (kqueue adds one
// filter per direction).
func benchRegisterDeregister(b *testing.B, d core.Driver) {
	for _, in := range []core.Interest{core.Read, core.Read | core.Write} {
		b.Run(in.String(), func(b *testing.B) {
			b.ReportAllocs()
			x, _ := dcNewFds(b).pair()
			for b.Loop() {
				if err := d.Register(x, 1, in); err != nil {
					b.Fatalf("Register: %v", err)
				}
				if err := d.Deregister(x); err != nil {
					b.Fatalf("Deregister: %v", err)
				}
			}
		})
	}
}
