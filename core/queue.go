package core

// ring is a FIFO on a power-of-two circular buffer. It never shrinks, so a
// loop that once queued many items keeps the capacity and pushes and pops
// without allocating afterwards (the hot path of every microtask and
// callback).
type ring[T any] struct {
	buf        []T
	head, tail uint // head == tail: empty; both grow without bound, masked on use
}

func (r *ring[T]) len() int { return int(r.tail - r.head) }

func (r *ring[T]) push(v T) {
	if r.tail-r.head == uint(len(r.buf)) {
		r.grow()
	}
	r.buf[r.tail&uint(len(r.buf)-1)] = v
	r.tail++
}

func (r *ring[T]) pop() T {
	var zero T
	i := r.head & uint(len(r.buf)-1)
	v := r.buf[i]
	r.buf[i] = zero // drop the reference so the closure can be collected
	r.head++
	return v
}

func (r *ring[T]) grow() { r.growTo(len(r.buf) * 2) }

// reserve makes room for n more items at once, instead of doubling (and
// copying) on the way there.
func (r *ring[T]) reserve(n int) {
	if need := r.len() + n; need > len(r.buf) {
		size := max(len(r.buf), 64)
		for size < need {
			size *= 2
		}
		r.growTo(size)
	}
}

func (r *ring[T]) growTo(n int) {
	n = max(n, 64)
	buf := make([]T, n)
	for i := uint(0); r.head+i != r.tail; i++ {
		buf[i] = r.buf[(r.head+i)&uint(len(r.buf)-1)]
	}
	r.tail -= r.head
	r.head = 0
	r.buf = buf
}

// reset empties the ring, dropping every reference it holds.
func (r *ring[T]) reset() {
	clear(r.buf)
	r.head, r.tail = 0, 0
}
