package core

import (
	"math"
	"testing"
	"time"
)

// Every duration is counted in the bucket whose bounds (BucketBounds) hold
// it: both ends of each bucket and a point inside it; the last bucket holds
// everything from its lower bound on, and a negative duration counts as 0.
func TestHistogramRecordsIntoItsBucket(t *testing.T) {
	for i := range HistogramBuckets {
		lo, hi := BucketBounds(i)
		for _, d := range []time.Duration{lo, lo + (hi-lo)/2, hi - 1} {
			var h Histogram
			h.record(int64(d))
			if h.Buckets[i] != 1 {
				got := -1
				for j, n := range h.Buckets {
					if n != 0 {
						got = j
					}
				}
				t.Fatalf("%v (bucket %d holds [%v, %v)) counted in bucket %d", d, i, lo, hi, got)
			}
		}
	}
	last, _ := BucketBounds(HistogramBuckets - 1)
	var h Histogram
	h.record(-5)
	for _, d := range []time.Duration{last + last/4, last + last/2, last * 3, math.MaxInt64} {
		h.record(int64(d))
	}
	if h.Buckets[0] != 1 || h.Buckets[HistogramBuckets-1] != 4 || h.Max != math.MaxInt64 || h.Count != 5 {
		t.Fatalf("-5 ns, then four durations beyond %v: bucket 0 holds %d, the last %d, Max %v, Count %d",
			last, h.Buckets[0], h.Buckets[HistogramBuckets-1], h.Max, h.Count)
	}
}
