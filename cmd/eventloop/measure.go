package main

import (
	"math"
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
	runtime.ReadMemStats(&memStats)
	return memStats.HeapAlloc + memStats.StackInuse, memStats.StackInuse
}

// memStats is not a local of memInUse: a 5.6 KB frame on main's stack while
// runtime.GC scans it raises the average stack size the runtime starts new
// goroutines with (adaptivestackstart) from 2 KiB to 4 KiB, and every fiber
// made after the baseline would then start, and stay, at 4 KiB.
var memStats runtime.MemStats

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
	sw := startStopwatch()
	err := fn()
	d := sw.elapsed()
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

// medianCI returns the median of xs and a 95% interval for it that assumes
// nothing about the distribution: the k-th smallest and the k-th largest
// value, with k the largest rank such that a binomial(n, 1/2) count falls
// below k with probability at most 2.5% (a sign test). Noise on a shared
// machine is skewed and comes in bursts, which would mislead an interval
// built on a mean and a standard deviation. Below 6 values no rank gives
// 95%; the interval is then the whole range, and covers less.
func medianCI(xs []float64) (med, lo, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		med = s[n/2]
	} else {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	k, p := 0, math.Pow(0.5, float64(n)) // p = P(count = k)
	for cum := p; cum <= 0.025; cum += p {
		k++                              // P(count < k) = cum
		p *= float64(n-k+1) / float64(k) // P(count = k)
	}
	k = max(k, 1)
	return med, s[k-1], s[n-k]
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
