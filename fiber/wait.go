package fiber

import (
	"context"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// node is one wait on a primitive: a fiber's (s) or a callback's (fn, for
// First and Any). It is on its list exactly while parked, and whoever
// takes it off (the primitive, the context's end, or the fiber after
// Close unwound it) is the one that ends the wait: nothing resumes a
// fiber twice.
type node[T any] struct {
	s          *core.Suspension
	fn         func()
	parked     bool
	err        error  // why the wait ended; nil: the primitive granted it
	gen        uint64 // counts waits, so that a late cancellation finds nothing
	v          T      // the value a Send hands over, or a Recv is handed
	n          int    // units a Semaphore waiter wants
	prev, next *node[T]
	list       *waitList[T]
}

// waitList is a FIFO of parked nodes, with a free list of nodes for reuse:
// once as many nodes exist as waits ever overlapped, waiting allocates
// nothing.
type waitList[T any] struct {
	head, tail *node[T]
	free       *node[T]
	// first is the node of the first wait, in the list's own memory: a
	// future awaited once, or a lock waited for by one fiber at a time,
	// allocates no node at all.
	first     node[T]
	firstUsed bool
	// kick runs after a cancellation took a node off: a Semaphore's head
	// may have been what held the waiters behind it.
	kick func()
}

func (q *waitList[T]) get(s *core.Suspension) *node[T] {
	n := q.free
	if n == nil {
		if !q.firstUsed {
			q.firstUsed = true
			q.first.s = s
			return &q.first
		}
		return &node[T]{s: s}
	}
	q.free = n.next
	n.next = nil
	n.s = s
	return n
}

func (q *waitList[T]) put(n *node[T]) {
	var zero T
	n.s, n.fn, n.err, n.v, n.n = nil, nil, nil, zero, 0
	if n == &q.first {
		q.firstUsed = false
		return
	}
	n.next = q.free
	q.free = n
}

func (q *waitList[T]) push(n *node[T]) {
	n.parked = true
	n.list = q
	n.prev, n.next = q.tail, nil
	if q.tail == nil {
		q.head = n
	} else {
		q.tail.next = n
	}
	q.tail = n
}

func (q *waitList[T]) remove(n *node[T]) {
	if n.prev == nil {
		q.head = n.next
	} else {
		n.prev.next = n.next
	}
	if n.next == nil {
		q.tail = n.prev
	} else {
		n.next.prev = n.prev
	}
	n.prev, n.next, n.list = nil, nil, nil
}

// pop takes the first node off, or returns nil.
func (q *waitList[T]) pop() *node[T] {
	n := q.head
	if n != nil {
		q.remove(n)
	}
	return n
}

// wake ends n's wait with err (nil: granted); n is off its list already.
func (n *node[T]) wake(err error) {
	n.parked = false
	n.err = err
	if n.fn != nil {
		n.fn()
		return
	}
	n.s.Resume(nil)
}

// errForeignResume is the panic of a wait that a Resume of the fiber's
// Suspension from outside this package ended.
const errForeignResume = "fiber: a fiber waiting in this package was resumed by a Resume of its Suspension from elsewhere"

// wait suspends the running fiber, whose node n is on its list, until its
// wait ends: granted (nil), the context's end (ctx.Err()) or Close
// (ErrLoopClosed). A context that can never end costs nothing here.
//
// A context that can end keeps the loop's Run going while the wait lasts,
// as a timer does: its end is an event that must find the loop running
// (a cancel made in a callback reaches the loop through a post, a moment
// later). A deadline is a timer of the loop, so it ends the wait in the
// tick it is due, with no goroutine in between.
func wait[T any](l *core.Loop, ctx context.Context, n *node[T]) error {
	var stop func() bool
	var hold core.CallbackID
	if ctx.Done() != nil {
		gen := n.gen
		end := func(err error) {
			if n.gen != gen || !n.parked {
				return // granted first, or a later wait of a reused node
			}
			q := n.list
			q.remove(n)
			n.wake(err)
			if q.kick != nil {
				q.kick()
			}
		}
		stop = context.AfterFunc(ctx, func() {
			_ = l.Post(func() { end(ctx.Err()) })
		})
		if d, ok := ctx.Deadline(); ok {
			hold = l.Delay(max(time.Until(d), 0), func(core.CallbackID) { end(context.DeadlineExceeded) })
		} else {
			hold = l.Repeat(time.Hour, func(core.CallbackID) {})
		}
	}
	_, err := n.s.Suspend()
	n.gen++
	if stop != nil {
		stop()
		l.Cancel(hold)
	}
	if err != nil {
		// Close unwinds the fiber; if something granted the wait first,
		// what it granted goes with the loop.
		if n.parked {
			n.list.remove(n)
			n.parked = false
		}
		return err
	}
	if n.parked {
		// Off its list, as a cancellation takes it, so that the primitive
		// neither resumes the fiber later nor holds back the others.
		q := n.list
		q.remove(n)
		n.parked = false
		if q.kick != nil {
			q.kick()
		}
		panic(errForeignResume)
	}
	return n.err
}
