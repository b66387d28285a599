package fiber

import (
	"context"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
)

// benchIn runs fn(b) in a fiber of a fresh loop on the default driver.
func benchIn(b *testing.B, fn func(l *core.Loop)) {
	l, err := eventloop.New()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	l.Defer(func(core.CallbackID) { fn(l) })
	if err := l.Run(); err != nil {
		b.Fatal(err)
	}
}

// The yardstick: a fiber suspends and a microtask resumes it.
func BenchmarkSuspensionCycle(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		s := l.Suspension()
		resume := func() { s.Resume(nil) }
		b.ReportAllocs()
		for b.Loop() {
			l.Queue(resume)
			_, _ = s.Suspend()
		}
	})
}

// A fiber awaits a future that another fiber completes: the waiter
// suspends and is resumed once.
func BenchmarkFutureAwait(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			f := Go(l, func() (int, error) { return 1, nil })
			_, _ = f.Await(ctx)
		}
	})
}

// Go alone, so that FutureAwait minus this is what the await adds. An op
// is: a Go from a fiber of a function that returns at once (the future
// made and its start queued), that function's run in a microtask and the
// future settled with nobody waiting, plus a hundredth of a suspension
// cycle: every 100 Go the benchmark's fiber suspends once so that the
// queued futures run (a Queue'd resume behind them). Nothing awaits.
func BenchmarkGo(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		s := l.Suspension()
		resume := func() { s.Resume(nil) }
		fn := func() (int, error) { return 1, nil }
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			Go(l, fn)
			if n++; n == 100 {
				n = 0
				l.Queue(resume)
				_, _ = s.Suspend()
			}
		}
		l.Queue(resume)
		_, _ = s.Suspend()
	})
}

// FutureAwait without the future: a function started by Go resumes the
// benchmark's fiber through a bare Suspension. What FutureAwait costs
// beyond this is all that Await adds to a suspension cycle.
func BenchmarkGoResume(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		s := l.Suspension()
		fn := func() (int, error) { s.Resume(nil); return 1, nil }
		b.ReportAllocs()
		for b.Loop() {
			Go(l, fn)
			_, _ = s.Suspend()
		}
	})
}

// A Send and a Recv each way between two fibers (unbuffered queues):
// each fiber suspends once a round.
func BenchmarkQueuePingPong(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		ping, pong := NewQueue[int](l, 0), NewQueue[int](l, 0)
		ctx := context.Background()
		l.Queue(func() {
			for {
				v, err := ping.Recv(ctx)
				if err != nil {
					return
				}
				_ = pong.Send(ctx, v)
			}
		})
		b.ReportAllocs()
		for b.Loop() {
			_ = ping.Send(ctx, 1)
			_, _ = pong.Recv(ctx)
		}
		ping.Close()
	})
}

// A Send then a Recv on a buffered queue in one fiber: no suspension.
func BenchmarkQueueBuffered(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		q := NewQueue[int](l, 64)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_ = q.Send(ctx, 1)
			_, _ = q.Recv(ctx)
		}
	})
}

// Lock and Unlock with nobody else.
func BenchmarkMutexUncontended(b *testing.B) {
	benchIn(b, func(l *core.Loop) {
		m := NewMutex(l)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_ = m.Lock(ctx)
			m.Unlock()
		}
	})
}
