package core

import "testing"

// The ring keeps FIFO order across wrap-around, doubling and reserve.
func TestRingOrder(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	push := func(n int) {
		for range n {
			r.push(next)
			next++
		}
	}
	pop := func(n int) {
		for range n {
			if got := r.pop(); got != want {
				t.Fatalf("pop: got %d, want %d", got, want)
			}
			want++
		}
	}
	push(50)
	pop(40) // head and tail now wrap around a buffer of 64
	push(50)
	r.reserve(900)
	if len(r.buf) != 1024 {
		t.Fatalf("reserve(900) with 60 queued: buffer of %d, want 1024", len(r.buf))
	}
	push(900)
	r.reserve(10) // room enough: no growth
	if len(r.buf) != 1024 {
		t.Fatalf("reserve(10) grew the buffer to %d", len(r.buf))
	}
	pop(r.len())
	if next != want {
		t.Fatalf("pushed %d, popped %d", next, want)
	}
}

// A ring that is full grows on the next push, wherever its head is: one
// filled past its size after its head moved keeps every item in order.
func TestRingGrowsWhenFullAfterWrap(t *testing.T) {
	var r ring[int]
	for i := range 40 {
		r.push(i)
	}
	for range 40 {
		r.pop()
	}
	size := len(r.buf)
	for i := range size + 1 {
		r.push(i)
	}
	for want := range size + 1 {
		if got := r.pop(); got != want {
			t.Fatalf("pop %d of %d pushed onto a ring of %d after wrapping: got %d", want, size+1, size, got)
		}
	}
}
