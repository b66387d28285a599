package main

import (
	"runtime"
	"runtime/metrics"
	"slices"
	"time"
)

// memInUse is heap objects plus goroutine stacks in use, and the stacks
// alone, after two full GCs: the stacks of exited goroutines are freed
// only by the GC after the one that found them dead.
func memInUse() (total, stacks uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse, ms.StackInuse
}

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}

// mallocs is the number of heap objects allocated so far (cheap: no
// stop-the-world).
func mallocs() uint64 {
	metrics.Read(allocSample)
	if allocSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return allocSample[0].Value.Uint64()
}

// sample is one timed run.
type sample struct {
	d      time.Duration
	allocs uint64
}

// timed runs fn once, after a GC so that one run's garbage is not
// collected during the next.
func timed(fn func() error) (sample, error) {
	runtime.GC()
	a := mallocs()
	t := time.Now()
	err := fn()
	d := time.Since(t)
	return sample{d: d, allocs: mallocs() - a}, err
}

// median of the samples by duration; allocations are the median too.
func median(s []sample) sample {
	ds := make([]time.Duration, len(s))
	as := make([]uint64, len(s))
	for i, x := range s {
		ds[i], as[i] = x.d, x.allocs
	}
	slices.Sort(ds)
	slices.Sort(as)
	return sample{d: ds[len(ds)/2], allocs: as[len(as)/2]}
}

// goroutinesSettle waits (up to a second) for the goroutine count to come
// down to want, since an exiting goroutine is counted until it is gone, and
// returns the count.
func goroutinesSettle(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// stackStart is the size new goroutines (fibers) start with.
func stackStart() uint64 {
	s := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
