package core

import (
	"testing"
	"time"
)

// On a coarse clock a quick run is timed at 0 ns: Windows' monotonic clock
// advances in steps of up to 15.6 ms, Wine's in steps of tens to hundreds
// of microseconds. Such a run is still the slowest so far when none came
// before it, so with the watchdog on, Metrics.Slowest names it instead of
// staying zero as if the watchdog were off.
func TestSlowestCountsARunTimedAtZero(t *testing.T) {
	l := &Loop{diagnostics: diagnostics{wd: newWatchdog(time.Hour, nil)}}
	const start = 1000
	l.wd.recs[0] = runRecord{id: 7 << idBits, typ: TypeDefer, kind: kindCallback}
	l.wdEnded(uint64(start+1)<<2, start) // ended at the reading it began at
	want := SlowestCallback{ID: 7 << idBits, Type: TypeDefer, Kind: "defer"}
	if got := l.m.slowest; got != want {
		t.Fatalf("Slowest after one run timed at 0 ns: %+v, want %+v", got, want)
	}
	// A later run timed at 0 ns too does not replace the first.
	l.wd.recs[1] = runRecord{id: 8 << idBits, typ: TypeDelay, kind: kindCallback}
	l.wdEnded(uint64(start+1)<<2|1<<1, start)
	if got := l.m.slowest; got != want {
		t.Fatalf("Slowest after a second run timed at 0 ns: %+v, want %+v (the first)", got, want)
	}
}

// The watchdog polls every quarter of the threshold, so that a run is
// reported at most a quarter of the threshold after it has passed it, but
// no more often than every 100 µs, which would spend a core on polling.
func TestWatchdogPollsFourTimesPerThreshold(t *testing.T) {
	for _, c := range []struct{ threshold, period time.Duration }{
		{time.Second, time.Second / 4},
		{20 * time.Millisecond, 5 * time.Millisecond},
		{400 * time.Microsecond, 100 * time.Microsecond},
		{time.Microsecond, 100 * time.Microsecond},
		{time.Nanosecond, 100 * time.Microsecond},
	} {
		if got := newWatchdog(c.threshold, nil).period; got != c.period {
			t.Errorf("threshold %v: polls every %v, want %v", c.threshold, got, c.period)
		}
	}
}
