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
