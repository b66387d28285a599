package httpserver

import "testing"

// A free list keeps what is put back, up to poolMax and no more: a burst
// of conns does not leave the loop holding all their buffers.
func TestFreeListBound(t *testing.T) {
	var f freeList[*int]
	for i := range poolMax + 3 {
		f.put(new(int))
		if want := min(i+1, poolMax); len(f.items) != want {
			t.Fatalf("after %d puts: %d kept, want %d", i+1, len(f.items), want)
		}
	}
	for i := range poolMax {
		if _, ok := f.get(); !ok {
			t.Fatalf("get %d of %d kept: none", i+1, poolMax)
		}
	}
	if _, ok := f.get(); ok {
		t.Error("get from an empty free list: got one")
	}
}
