package fiber

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Close unwinds every fiber waiting in a primitive, and ends every
// goroutine's wait, with an error that wraps core.ErrLoopClosed and names
// the call; the case's leak check finds no goroutine left.
func TestCloseUnwindsWaits(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		q := NewQueue[int](l, 0)
		full := NewQueue[int](l, 0)
		m := NewMutex(l)
		s := NewSemaphore(l, 1)
		never := &Future[int]{l: l}
		g := NewGroup(context.Background(), l)
		type wait struct {
			name string
			fn   func(ctx context.Context) error
		}
		waits := []wait{
			{"Queue.Recv", func(ctx context.Context) error { _, err := q.Recv(ctx); return err }},
			{"Queue.Send", func(ctx context.Context) error { return full.Send(ctx, 1) }},
			{"Mutex.Lock", m.Lock},
			{"Semaphore.Acquire", func(ctx context.Context) error { return s.Acquire(ctx, 1) }},
			{"Future.Await", func(ctx context.Context) error { _, err := never.Await(ctx); return err }},
			{"First", func(ctx context.Context) error { _, err := First(ctx, never); return err }},
			{"Group.Wait", func(context.Context) error { return g.Wait() }},
		}
		fiberErrs := make([]error, 2*len(waits))
		runIn(t, l, func() {
			_ = m.Lock(context.Background())
			_ = s.Acquire(context.Background(), 1)
			g.Go(func(ctx context.Context) error { _, err := never.Await(ctx); return err })
			for i, w := range waits {
				fiberErrs[i] = errors.New("never returned")
				spawn(l, func() { fiberErrs[i] = w.fn(context.Background()) })
				// With a context that can end, the wait keeps Run going.
				ctx, cancel := context.WithCancel(context.Background())
				fiberErrs[len(waits)+i] = errors.New("never returned")
				spawn(l, func() { defer cancel(); fiberErrs[len(waits)+i] = w.fn(ctx) })
			}
			until(l, func() bool { return waiting(&q.recvq) == 2 && futureWaiting(never) == 5 })
			l.Stop()
		})
		goErrs := make(chan string, len(waits))
		for _, w := range waits {
			go func() {
				err := w.fn(context.Background())
				if !errors.Is(err, core.ErrLoopClosed) || !strings.HasPrefix(err.Error(), "fiber: "+w.name+": ") {
					goErrs <- "goroutine " + w.name + ": " + errString(err)
					return
				}
				goErrs <- ""
			}()
		}
		// Every goroutine's wait is in place, seen from the loop (which
		// one of them runs meanwhile).
		for !onLoopTrue(l, func() bool {
			return waiting(&q.recvq) == 3 && waiting(&full.sendq) == 3 && waiting(&m.waiters) == 3 &&
				waiting(&s.waiters) == 3 && futureWaiting(never) == 7 && waiting(&g.waiters) == 3
		}) {
			time.Sleep(time.Millisecond)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		for i, err := range fiberErrs {
			name := waits[i%len(waits)].name
			if !errors.Is(err, core.ErrLoopClosed) || !strings.HasPrefix(err.Error(), "fiber: "+name+": ") {
				t.Errorf("fiber %s: %v; want an error naming it that wraps ErrLoopClosed", name, err)
			}
		}
		for range waits {
			if msg := <-goErrs; msg != "" {
				t.Errorf("%s; want an error naming it that wraps ErrLoopClosed", msg)
			}
		}
	})
}

// onLoopTrue runs cond on l and returns what it said; it runs l itself
// if nobody else does (RunUntil).
func onLoopTrue(l *core.Loop, cond func() bool) bool {
	done := make(chan struct{})
	var ok bool
	if l.Post(func() { ok = cond(); close(done) }) != nil {
		return false
	}
	if l.RunUntil(done) != nil {
		return false
	}
	return ok
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
