package fdcheck

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// TestSweepInterval pins the schedule the drivers document: 10 ms after
// activity, doubling while idle up to 1 s, never below 100 times the
// sweep's own cost.
func TestSweepInterval(t *testing.T) {
	var s Sweep
	now := s.Now()
	if s.Due(now) {
		t.Fatal("due at once")
	}
	if got, capped := s.Bound(now, -1); !capped || got > MinInterval {
		t.Fatalf("Bound(forever) = %v, %v; want at most %v, capped", got, capped, MinInterval)
	}
	if got, capped := s.Bound(now, time.Millisecond); capped || got != time.Millisecond {
		t.Fatalf("Bound(1ms) = %v, %v; want 1ms, not capped", got, capped)
	}
	at := func() { now = s.next; s.Swept(now, now) }
	var intervals []time.Duration
	for range 10 {
		before := s.next
		at()
		intervals = append(intervals, s.next-before)
	}
	want := []time.Duration{20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000}
	for i, w := range want {
		if intervals[i] != w*time.Millisecond {
			t.Fatalf("idle intervals %v, want %v ms", intervals, want)
		}
	}
	s.Activity()
	at()
	if got := s.next - now; got != MinInterval {
		t.Fatalf("interval after activity = %v, want %v", got, MinInterval)
	}
	s.Activity()
	s.Swept(now, now+50*time.Millisecond)
	if got := s.next - (now + 50*time.Millisecond); got != 5*time.Second {
		t.Fatalf("interval after a 50ms sweep = %v, want 5s", got)
	}
}

func TestPollDueReadsTheClockRarely(t *testing.T) {
	var s Sweep
	s.Now()
	s.next = 0 // due
	for i := 1; i < pollStride; i++ {
		if s.PollDue() {
			t.Fatalf("PollDue true at call %d", i)
		}
	}
	if !s.PollDue() {
		t.Fatalf("PollDue false at call %d", pollStride)
	}
}

// TestBeforeWait pins the schedule around a Wait: a blocking Wait is
// capped at the next sweep and does not block when a due sweep finds a
// closed fd; a poll does not read the clock.
func TestBeforeWait(t *testing.T) {
	var s Sweep
	sweeps := 0
	found := 0
	check := func(events []core.Event) int { sweeps++; return found }
	events := make([]core.Event, 4)
	if n, to, capped := s.BeforeWait(events, -1, 1, check); n != 0 || !capped || to <= 0 || to > MinInterval || sweeps != 0 {
		t.Fatalf("BeforeWait(forever) = %d, %v, %v after %d sweeps; want capped at most %v, no sweep", n, to, capped, sweeps, MinInterval)
	}
	if got := s.AfterWait(events, check); got != 0 || sweeps != 0 {
		t.Fatalf("AfterWait before due = %d after %d sweeps, want no sweep", got, sweeps)
	}
	s.next = 0 // due
	found = 1
	if n, to, capped := s.BeforeWait(events, time.Second, 1, check); n != 1 || to != 0 || capped || sweeps != 1 {
		t.Fatalf("BeforeWait(1s) when due = %d, %v, %v after %d sweeps; want 1, 0, false after 1", n, to, capped, sweeps)
	}
	s.next = 0
	for range pollStride - 1 {
		s.BeforeWait(events, 0, 1, check)
	}
	if sweeps != 1 {
		t.Fatalf("%d sweeps in %d polls, want none before the %dth", sweeps-1, pollStride-1, pollStride)
	}
}
