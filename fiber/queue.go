package fiber

import (
	"context"
	"errors"
	"fmt"

	"github.com/revoltgo/eventloop/core"
)

// ErrClosed is matched (errors.Is) by the error of a Recv on a closed and
// drained Queue and of a Send on a closed one.
var ErrClosed = errors.New("fiber: the Queue is closed")

// errSendClosed is the error of a Send on a closed Queue: a misuse, named.
var errSendClosed = fmt.Errorf("fiber: Send on a closed Queue: %w", ErrClosed)

// Queue passes values between fibers, first in first out, with room for a
// fixed number (amphp/pipeline's Queue, a Go channel's shape): Send waits
// while it is full, Recv while it is empty. With no room at all (capacity
// 0) a Send waits for a Recv to take its value, as on an unbuffered
// channel.
//
// Send, Recv and Close may be called from any goroutine: from a fiber of
// the queue's loop a call that waits suspends that fiber; from any other
// goroutine it blocks it (and runs the loop if nobody does). Len and Cap
// are for the loop's fibers only. Waiting senders and receivers are served
// in the order they came (FIFO): none is passed over.
//
// Close is the sender's "no more": Recv drains what is buffered and then
// returns ErrClosed. A Send after Close, and a Send still waiting when
// Close is called, returns an error that says so (wrapping ErrClosed);
// its value is not queued. Close is idempotent.
type Queue[T any] struct {
	l      *core.Loop
	buf    []T // a ring of cap(buf) slots
	head   int
	count  int
	closed bool
	recvq  waitList[T] // waiting only while the buffer is empty
	sendq  waitList[T] // waiting only while the buffer is full
}

// NewQueue returns a queue of l with room for capacity values. It panics
// if capacity is negative.
func NewQueue[T any](l *core.Loop, capacity int) *Queue[T] {
	if capacity < 0 {
		panic(fmt.Sprintf("fiber: NewQueue called with a negative capacity %d", capacity))
	}
	return &Queue[T]{l: l, buf: make([]T, capacity)}
}

// Send puts v at the end of the queue, waiting while it is full; it
// returns ctx.Err() if ctx ends first (v is then not queued), an error
// wrapping ErrClosed if the queue is closed, and one wrapping
// core.ErrLoopClosed if the loop closes first.
func (q *Queue[T]) Send(ctx context.Context, v T) error {
	if q.l.InFiber() {
		return named("Queue.Send", q.send(ctx, v))
	}
	return blocking(q.l, ctx, "Queue.Send", func(ctx context.Context) error { return q.send(ctx, v) })
}

func (q *Queue[T]) send(ctx context.Context, v T) error {
	if q.closed {
		return errSendClosed
	}
	if r := q.recvq.pop(); r != nil {
		r.v = v
		r.wake(nil)
		return nil
	}
	if q.count < len(q.buf) {
		q.buf[(q.head+q.count)%len(q.buf)] = v
		q.count++
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := q.sendq.get(q.l.Suspension())
	n.v = v
	q.sendq.push(n)
	err := wait(q.l, ctx, n)
	q.sendq.put(n)
	return err
}

// Recv takes the value at the front of the queue, waiting while it is
// empty; it returns ErrClosed once the queue is closed and drained,
// ctx.Err() if ctx ends first, and an error wrapping core.ErrLoopClosed if
// the loop closes first.
func (q *Queue[T]) Recv(ctx context.Context) (T, error) {
	if q.l.InFiber() {
		v, err := q.recv(ctx)
		return v, named("Queue.Recv", err)
	}
	var v T
	err := blocking(q.l, ctx, "Queue.Recv", func(ctx context.Context) error {
		var err error
		v, err = q.recv(ctx)
		return err
	})
	return v, err
}

func (q *Queue[T]) recv(ctx context.Context) (T, error) {
	var zero T
	if q.count > 0 {
		v := q.buf[q.head]
		q.buf[q.head] = zero
		q.head = (q.head + 1) % len(q.buf)
		q.count--
		// A sender waited for this slot: its value goes in behind.
		if s := q.sendq.pop(); s != nil {
			q.buf[(q.head+q.count)%len(q.buf)] = s.v
			q.count++
			s.wake(nil)
		}
		return v, nil
	}
	if s := q.sendq.pop(); s != nil { // no room at all: hand over
		v := s.v
		s.wake(nil)
		return v, nil
	}
	if q.closed {
		return zero, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	n := q.recvq.get(q.l.Suspension())
	q.recvq.push(n)
	err := wait(q.l, ctx, n)
	v := n.v
	q.recvq.put(n)
	if err != nil {
		return zero, err
	}
	return v, nil
}

// Close closes the queue: waiting receivers get ErrClosed (nothing is
// buffered while they wait), waiting senders an error wrapping it.
func (q *Queue[T]) Close() {
	if q.l.InFiber() {
		q.close()
		return
	}
	_ = blocking(q.l, context.Background(), "Queue.Close", func(context.Context) error {
		q.close()
		return nil
	})
}

func (q *Queue[T]) close() {
	if q.closed {
		return
	}
	q.closed = true
	for n := q.recvq.pop(); n != nil; n = q.recvq.pop() {
		n.wake(ErrClosed)
	}
	for n := q.sendq.pop(); n != nil; n = q.sendq.pop() {
		n.wake(errSendClosed)
	}
}

// Len is the number of values buffered. Only for the loop's fibers.
func (q *Queue[T]) Len() int { return q.count }

// Cap is the room the queue was made with.
func (q *Queue[T]) Cap() int { return len(q.buf) }
