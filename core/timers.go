package core

// timerHeap is a binary min-heap of armed timers ordered by deadline, then by
// arming order, so that timers due at the same instant run in the order they
// were created (or enabled). Each callback knows its index, so removal is
// O(log n) without a search.
type timerHeap []*callback

func (h timerHeap) less(i, j int) bool {
	if h[i].deadline != h[j].deadline {
		return h[i].deadline < h[j].deadline
	}
	return h[i].seq < h[j].seq
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = int32(i)
	h[j].heapIdx = int32(j)
}

func (h *timerHeap) push(c *callback) {
	c.heapIdx = int32(len(*h))
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

// remove takes c out of the heap; c must be in it.
func (h *timerHeap) remove(c *callback) {
	i := int(c.heapIdx)
	last := len(*h) - 1
	if i != last {
		h.swap(i, last)
	}
	(*h)[last] = nil
	*h = (*h)[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
	c.heapIdx = -1
}

func (h timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h timerHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}
