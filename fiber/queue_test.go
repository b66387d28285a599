package fiber

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// Send waits while the queue is full and Recv while it is empty; values
// come out in the order they went in, and waiting senders go in the
// order they came.
func TestQueueBounded(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var log []string
		runIn(t, l, func() {
			q := NewQueue[int](l, 2)
			for i := range 5 {
				spawn(l, func() {
					if err := q.Send(context.Background(), i); err != nil {
						t.Errorf("Send(%d) = %v", i, err)
					}
					log = append(log, fmt.Sprint("sent ", i))
				})
			}
			until(l, func() bool { return waiting(&q.sendq) == 3 })
			if q.Len() != 2 {
				t.Errorf("Len = %d with 3 senders waiting; want 2 (full)", q.Len())
			}
			log = append(log, "full")
			for range 5 {
				v, err := q.Recv(context.Background())
				if err != nil {
					t.Errorf("Recv = %v", err)
				}
				log = append(log, fmt.Sprint("got ", v))
			}
			r := Go(l, func() (int, error) { return q.Recv(context.Background()) })
			until(l, func() bool { return waiting(&q.recvq) == 1 })
			log = append(log, "empty")
			if err := q.Send(context.Background(), 9); err != nil {
				t.Errorf("Send = %v", err)
			}
			v, _ := r.Await(context.Background())
			log = append(log, fmt.Sprint("waiting Recv got ", v))
		})
		want := "sent 0|sent 1|full|got 0|got 1|got 2|got 3|got 4|sent 2|sent 3|sent 4|empty|waiting Recv got 9"
		if got := strings.Join(log, "|"); got != want {
			t.Errorf("order: %s\nwant:  %s", got, want)
		}
	})
}

// With no room, a Send waits for a Recv to take its value.
func TestQueueUnbuffered(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			q := NewQueue[string](l, 0)
			sent := Go(l, func() (bool, error) { return true, q.Send(context.Background(), "hi") })
			until(l, func() bool { return waiting(&q.sendq) == 1 })
			if sent.done {
				t.Errorf("Send returned with nobody receiving")
			}
			if v, err := q.Recv(context.Background()); v != "hi" || err != nil {
				t.Errorf("Recv = %q, %v", v, err)
			}
			if _, err := sent.Await(context.Background()); err != nil {
				t.Errorf("Send = %v", err)
			}
		})
	})
}

// Close: Recv drains what is buffered, then reports ErrClosed; a Send
// after Close, or one waiting when it came, gets an error naming it.
func TestQueueClose(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			q := NewQueue[int](l, 1)
			_ = q.Send(context.Background(), 1)
			blocked := Go(l, func() (int, error) { return 0, q.Send(context.Background(), 2) })
			until(l, func() bool { return waiting(&q.sendq) == 1 })
			q.Close()
			q.Close()
			if _, err := blocked.Await(context.Background()); !errors.Is(err, ErrClosed) || err.Error() != "fiber: Send on a closed Queue: fiber: the Queue is closed" {
				t.Errorf("a Send waiting at Close = %v; want one naming Send on a closed Queue", err)
			}
			if err := q.Send(context.Background(), 3); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "Send on a closed Queue") {
				t.Errorf("Send after Close = %v; want one naming Send on a closed Queue", err)
			}
			if v, err := q.Recv(context.Background()); v != 1 || err != nil {
				t.Errorf("Recv after Close = %v, %v; want the buffered 1", v, err)
			}
			if _, err := q.Recv(context.Background()); err != ErrClosed {
				t.Errorf("Recv of a drained closed queue = %v; want ErrClosed", err)
			}
			e := NewQueue[int](l, 0)
			r := Go(l, func() (int, error) { return e.Recv(context.Background()) })
			until(l, func() bool { return waiting(&e.recvq) == 1 })
			e.Close()
			if _, err := r.Await(context.Background()); err != ErrClosed {
				t.Errorf("a Recv waiting at Close = %v; want ErrClosed", err)
			}
		})
	})
}

// A context ends a waiting Send (its value never queued) or Recv, and
// the queue serves the others as if it had not waited.
func TestQueueContext(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		runIn(t, l, func() {
			q := NewQueue[int](l, 1)
			_ = q.Send(context.Background(), 1)
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			if err := q.Send(ctx, 2); err != context.DeadlineExceeded {
				t.Errorf("Send past the deadline = %v", err)
			}
			if waiting(&q.sendq) != 0 || q.Len() != 1 {
				t.Errorf("a timed-out Send left %d waiters, %d values", waiting(&q.sendq), q.Len())
			}
			v, _ := q.Recv(context.Background())
			c2, cancel2 := context.WithCancel(context.Background())
			l.Delay(time.Millisecond, func(core.CallbackID) { cancel2() })
			if _, err := q.Recv(c2); err != context.Canceled || v != 1 {
				t.Errorf("Recv cancelled = %v (first value %d)", err, v)
			}
		})
	})
}

// Goroutines block in Send and Recv, against fibers and each other, with
// the loop run by one of them or by nobody else at all.
func TestQueueGoroutines(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		q := NewQueue[int](l, 1)
		const n = 50
		done := make(chan int)
		go func() {
			sum := 0
			for {
				v, err := q.Recv(context.Background())
				if err != nil {
					if err != ErrClosed {
						t.Errorf("goroutine Recv = %v", err)
					}
					done <- sum
					return
				}
				sum += v
			}
		}()
		for i := 1; i <= n; i++ {
			if err := q.Send(context.Background(), i); err != nil {
				t.Fatalf("goroutine Send = %v", err)
			}
		}
		q.Close()
		if sum := <-done; sum != n*(n+1)/2 {
			t.Errorf("sum %d; want %d", sum, n*(n+1)/2)
		}
	})
}

// NewQueue refuses a negative capacity, naming it.
func TestQueueMisuse(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mustPanic(t, "fiber: NewQueue called with a negative capacity -1", func() { NewQueue[int](l, -1) })
	})
}

// A goroutine's wait keeps the loop's Run going, as a goroutine's wait on
// an FD does: the goroutine that runs the loop for its own Recv does not
// give up for want of callbacks while another goroutine may still send.
func TestGoroutineWaitKeepsLoopRunning(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		q := NewQueue[int](l, 0)
		type result struct {
			v   int
			err error
		}
		got := make(chan result, 1)
		go func() {
			v, err := q.Recv(context.Background()) // runs the loop itself
			got <- result{v, err}
		}()
		// Its wait in place, the loop, with nothing else to do, goes on:
		// it blocks in its driver (Idle grows) instead of ending the run.
		var idle time.Duration
		for placed := false; !placed || l.Metrics().Idle == idle; time.Sleep(time.Millisecond) {
			select {
			case r := <-got:
				t.Fatalf("the goroutine's Recv returned %d, %v with nothing sent: its run ended", r.v, r.err)
			default:
			}
			if !placed && onLoopTrue(l, func() bool { return waiting(&q.recvq) == 1 }) {
				placed, idle = true, l.Metrics().Idle
			}
		}
		if err := q.Send(context.Background(), 5); err != nil {
			t.Errorf("Send = %v", err)
		}
		if r := <-got; r.v != 5 || r.err != nil {
			t.Errorf("the waiting goroutine's Recv = %d, %v; want 5, nil", r.v, r.err)
		}
	})
}

// A panic in another callback that ends the run a goroutine's call made
// (no error handler) reaches that goroutine: its call is withdrawn and
// returns the *core.UncaughtError, so that the panic is not lost.
func TestGoroutineCallGetsUncaughtPanic(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		q := NewQueue[int](l, 0)
		l.Defer(func(core.CallbackID) { panic("elsewhere") })
		_, err := q.Recv(context.Background())
		var ue *core.UncaughtError
		if !errors.As(err, &ue) || ue.Value != "elsewhere" {
			t.Errorf("Recv = %v; want the *core.UncaughtError of the panic elsewhere", err)
		}
		if n := 0; !onLoopTrue(l, func() bool { n = waiting(&q.recvq); return n == 0 }) {
			t.Errorf("the withdrawn Recv left %d waiters", n)
		}
	})
}

// Goroutines send to a fiber that receives: the values cross from
// goroutines to the loop in order, each sender's in the order it sent.
func TestQueueGoroutinesToFiber(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		stop := testloop.Run(t, l)
		q := NewQueue[[2]int](l, 2)
		const senders, each = 3, 40
		done := make(chan struct{})
		for s := range senders {
			go func() {
				defer func() { done <- struct{}{} }()
				for i := range each {
					if err := q.Send(context.Background(), [2]int{s, i}); err != nil {
						t.Errorf("Send = %v", err)
					}
				}
			}()
		}
		// The receiver starts with the queue full and every sender waiting:
		// each Recv moves the first waiting sender's value in behind.
		for !onLoopTrue(l, func() bool { return q.Len() == 2 && waiting(&q.sendq) == senders }) {
			time.Sleep(time.Millisecond)
		}
		sum := Go(l, func() ([senders]int, error) {
			var next [senders]int
			for {
				v, err := q.Recv(context.Background())
				if err != nil {
					return next, nil
				}
				if v[1] != next[v[0]] {
					t.Errorf("sender %d: got %d after %d", v[0], v[1], next[v[0]]-1)
				}
				next[v[0]] = v[1] + 1
			}
		})
		for range senders {
			<-done
		}
		q.Close()
		got, err := sum.Await(context.Background())
		if err != nil || got != [senders]int{each, each, each} {
			t.Errorf("the fiber got %v, %v; want %d from each", got, err, each)
		}
		stop()
	})
}
