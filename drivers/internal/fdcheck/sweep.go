package fdcheck

import (
	"time"

	"github.com/revoltgo/eventloop/driver"
)

const (
	// MinInterval is the time between sweeps while the driver is busy:
	// the latency of noticing a close right after activity.
	MinInterval = 10 * time.Millisecond
	// MaxInterval caps the interval reached by doubling while idle: the
	// worst latency of noticing a close, unless sweeps are slow.
	MaxInterval = time.Second
	// costFactor keeps the interval at least this many times the duration
	// of the last sweep, bounding the sweeping overhead to about 1%.
	costFactor = 100
	// pollStride is how many non-blocking Waits pass between clock
	// readings: a loop that only polls (always busy) still sweeps.
	pollStride = 256
)

// Sweep schedules the re-validation of a driver's registrations. The zero
// value is ready to use; it is owned by the loop's goroutine.
type Sweep struct {
	base     time.Time     // monotonic origin of every reading
	next     time.Duration // since base: when the next sweep is due
	interval time.Duration
	active   bool // events or registrations since the last sweep
	polls    uint32
}

// Now reads the monotonic clock.
func (s *Sweep) Now() time.Duration {
	if s.base.IsZero() {
		s.base = time.Now()
		s.interval = MinInterval
		s.next = MinInterval
	}
	return time.Since(s.base)
}

// Activity records that the driver reported an event or changed a
// registration: the next interval starts short again, because a close
// follows activity far more often than it follows silence.
func (s *Sweep) Activity() { s.active = true }

// Due reports whether a sweep is due at now.
func (s *Sweep) Due(now time.Duration) bool { return now >= s.next }

// PollDue is Due for a non-blocking Wait: it reads the clock only on every
// pollStride-th call.
func (s *Sweep) PollDue() bool {
	s.polls++
	if s.polls%pollStride != 0 {
		return false
	}
	return s.Due(s.Now())
}

// Bound caps a Wait timeout (negative: forever) at the time left until the
// next sweep, and reports whether it did, so that a Wait that then times out
// knows that the sweep is due.
func (s *Sweep) Bound(now, timeout time.Duration) (time.Duration, bool) {
	left := max(s.next-now, 0)
	if timeout < 0 || timeout > left {
		return left, true
	}
	return timeout, false
}

// Swept schedules the next sweep after one that started at start and
// ended at end.
func (s *Sweep) Swept(start, end time.Duration) {
	if s.active {
		s.interval = MinInterval
	} else {
		s.interval = min(2*s.interval, MaxInterval)
	}
	s.interval = max(s.interval, costFactor*(end-start))
	s.active = false
	s.next = end + s.interval
}

// Check is a driver's sweep of its registrations: it reports every fd
// found closed as Closed (into events, then into the driver's Pending),
// forgets it, and returns how many events it filled.
type Check func(events []driver.Event) int

// BeforeWait applies the schedule before a Wait of a driver with regs
// registrations; without any it does nothing, so that a driver that
// watches nothing never wakes for a sweep. A poll (timeout 0) sweeps when
// PollDue says so; a Wait that may block sweeps when due, does not block
// if the sweep found something, and is otherwise capped at the next sweep.
// events is the room left in the caller's slice; a blocking Wait has
// reported nothing yet. It returns how many events the sweep filled, the
// timeout to wait for, and whether the timeout was capped, for AfterWait.
func (s *Sweep) BeforeWait(events []driver.Event, timeout time.Duration, regs int, check Check) (n int, t time.Duration, capped bool) {
	if regs == 0 {
		return 0, timeout, false
	}
	if timeout == 0 {
		if s.PollDue() {
			n = s.run(events, check)
		}
		return n, 0, false
	}
	now := s.Now()
	if s.Due(now) {
		if n = s.run(events, check); n > 0 {
			return n, 0, false
		}
	}
	t, capped = s.Bound(now, timeout)
	return 0, t, capped
}

// AfterWait sweeps after a Wait that BeforeWait capped came back with
// nothing, if the sweep it was capped for is due, and returns how many
// events the sweep filled.
func (s *Sweep) AfterWait(events []driver.Event, check Check) int {
	if !s.Due(s.Now()) {
		return 0
	}
	return s.run(events, check)
}

// run sweeps and schedules the next sweep from what this one cost.
func (s *Sweep) run(events []driver.Event, check Check) int {
	start := s.Now()
	n := check(events)
	s.Swept(start, s.Now())
	return n
}
