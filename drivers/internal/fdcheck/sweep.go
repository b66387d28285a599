package fdcheck

import "time"

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
