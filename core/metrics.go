package core

import (
	"math"
	"math/bits"
	"sync"
	"time"
)

// Metrics describe a loop at work: where its time went, how late its timers
// ran, what it ran. Loop.Metrics returns them from any goroutine.
//
// The loop counts in plain fields, as it does for Stats, and publishes a
// copy under a mutex: before every blocking wait in the driver, every
// publishEvery ticks, when a run ends and at Close. From the loop itself
// (a callback, a microtask) Metrics are current; from another goroutine
// they are at most publishEvery ticks old, or as of the start of the
// blocking wait the loop is in (Running and Idle then count the wait up to
// the call). A loop stuck in one callback publishes nothing until it
// returns: the watchdog (WithWatchdog) is what reports that. After Close
// they are the final values.
type Metrics struct {
	// Running is the time spent in runs (Run, RunOnce, a main Suspend),
	// and Idle the part of it the loop spent blocked in the driver's Wait
	// with nothing to do. Busy (Running - Idle) is the rest.
	Running, Idle time.Duration
	// Ticks, and the fd events the driver reported in them.
	Ticks, FDEvents uint64
	// Callbacks counts the callbacks run, and CallbacksByType the same by
	// CallbackType (index 0 is unused).
	Callbacks       uint64
	CallbacksByType [8]uint64
	Microtasks      uint64
	Posts           uint64 // posted funcs run
	PostsPending    int    // posted, not run yet
	FibersSuspended int    // fibers suspended now, through their Suspension
	// TimerLateness is how late each timer callback (Delay, Repeat) ran
	// after its deadline (Node's monitorEventLoopDelay, for every timer),
	// by the loop's latest clock reading when the tick found it due (see
	// the package doc), or read again when callbacks before it in the same
	// tick ran.
	TimerLateness Histogram
	// Slowest is the callback, microtask, post or error handler that ran
	// longest so far. Timing every callback needs a clock read each, so it
	// is measured only with the watchdog on (WithWatchdog,
	// EVENTLOOP_DEBUG_SLOW); without, it is zero.
	Slowest SlowestCallback
	// Age is how old the counters were when Metrics returned them: 0 from
	// the loop itself, else (at least) the time since the loop published
	// them. Running and Idle are brought up to the call.
	Age time.Duration
}

// SlowestCallback names the longest run seen (Metrics.Slowest).
type SlowestCallback struct {
	ID   CallbackID   // 0 for a microtask, a post or the error handler
	Type CallbackType // 0 likewise
	Kind string       // as in SlowCallback
	Took time.Duration
}

// Busy is Running - Idle: the time the loop spent working.
func (m Metrics) Busy() time.Duration { return m.Running - m.Idle }

// EventsPerTick is the mean number of fd events a tick dispatched.
func (m Metrics) EventsPerTick() float64 {
	if m.Ticks == 0 {
		return 0
	}
	return float64(m.FDEvents) / float64(m.Ticks)
}

// Utilization is the loop's use of its time between two readings of
// Metrics, as Node's performance.eventLoopUtilization: Idle and Active
// (busy) time, and Utilization = Active / (Idle + Active), in [0, 1].
type Utilization struct {
	Idle, Active time.Duration
	Utilization  float64
}

// UtilizationSince is the utilization between an earlier reading prev and
// m; with a zero prev, over the loop's life.
func (m Metrics) UtilizationSince(prev Metrics) Utilization {
	u := Utilization{Idle: m.Idle - prev.Idle, Active: m.Busy() - prev.Busy()}
	if total := u.Idle + u.Active; total > 0 {
		u.Utilization = float64(u.Active) / float64(total)
	}
	return u
}

// HistogramBuckets is the number of buckets of a Histogram: one under
// 1.024 µs, four per power of two up to 2^38 ns, one above.
const HistogramBuckets = 114

// The bucket count follows from the constants below.
const _ = -uint(HistogramBuckets - (2 + histSub*histOctaves)) // compile error if not equal

const (
	histSub     = 4  // buckets per power of two: each spans at most 25% of its start
	histMinExp  = 10 // bucket 0 holds everything under 2^10 ns (~1 µs)
	histOctaves = 28 // up to 2^38 ns (~4.6 min); the last bucket holds the rest
)

// Histogram counts durations in fixed logarithmic buckets: bucket 0 holds
// those under 1.024 µs, then four buckets per power of two up to 2^38 ns
// (about 4.6 minutes), the last one holding everything above. Recording
// costs no allocation; quantiles are read with an error of at most 25%
// (one bucket), rounded up.
type Histogram struct {
	Count   uint64
	Sum     time.Duration
	Max     time.Duration
	Buckets [HistogramBuckets]uint64
}

func (h *Histogram) record(d int64) {
	if d < 0 {
		d = 0
	}
	h.Count++
	h.Sum += time.Duration(d)
	if time.Duration(d) > h.Max {
		h.Max = time.Duration(d)
	}
	h.Buckets[histIndex(uint64(d))]++
}

func histIndex(v uint64) int {
	e := bits.Len64(v) - 1
	if e < histMinExp {
		return 0
	}
	if e >= histMinExp+histOctaves {
		return HistogramBuckets - 1
	}
	sub := int(v>>(e-2)) & (histSub - 1)
	return 1 + (e-histMinExp)*histSub + sub
}

// BucketBounds returns the durations bucket i of a Histogram holds: from lo
// (included) to hi (excluded; the last bucket's hi is the largest
// time.Duration).
func BucketBounds(i int) (lo, hi time.Duration) {
	switch {
	case i <= 0:
		return 0, 1 << histMinExp
	case i >= HistogramBuckets-1:
		return 1 << (histMinExp + histOctaves), math.MaxInt64
	}
	e := histMinExp + (i-1)/histSub
	s := (i - 1) % histSub
	return time.Duration((histSub + s) << (e - 2)), time.Duration((histSub + s + 1) << (e - 2))
}

// Quantile returns the duration that a fraction q (0 to 1) of the samples
// do not exceed: the upper bound of the bucket that holds it, or Max if that
// is smaller. 0 without samples.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.Count)))
	rank = max(rank, 1)
	var cum uint64
	for i, n := range h.Buckets {
		if cum += n; cum >= rank {
			_, hi := BucketBounds(i)
			return min(hi, h.Max)
		}
	}
	return h.Max
}

// Mean is Sum / Count (0 without samples).
func (h *Histogram) Mean() time.Duration {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / time.Duration(h.Count)
}

// publishEvery is how many ticks may pass between two publications of the
// metrics, when the loop does not block (a power of two).
const publishEvery = 1024

// Stats are plain counters, read at the moment of the call: Ticks,
// Callbacks and Microtasks are the counts Metrics reports too.
type Stats struct {
	Ticks, Callbacks, Microtasks, FibersStarted uint64
	// FibersLive counts fibers that are running or suspended, the loop's own
	// loop and callback fibers included; fibers parked for reuse are not
	// live. After Run returns with nothing suspended it is 0.
	FibersLive int
	// MaxResumeDepth is the deepest resume chain seen (see ResumeDepth).
	MaxResumeDepth int
	// FiberGoroutines counts the goroutines behind fibers, pooled ones
	// included; Close ends them all.
	FiberGoroutines int
}

// Stats returns the loop's counters.
func (l *Loop) Stats() Stats {
	c := &l.counts
	return Stats{
		Ticks:           c.ticks,
		Callbacks:       c.callbacks(),
		Microtasks:      c.microtasks,
		FibersStarted:   c.fibersStarted,
		FibersLive:      l.fibersLive,
		MaxResumeDepth:  c.maxResumeDepth,
		FiberGoroutines: l.fibers.n,
	}
}

// counters are what the loop counts, in plain fields only it writes: the
// one home of the counts that Stats and Metrics both report.
type counters struct {
	ticks          uint64
	byType         [8]uint64 // callbacks run, by CallbackType
	microtasks     uint64
	posts          uint64 // posted funcs run
	fdEvents       uint64
	fibersStarted  uint64
	maxResumeDepth int
	suspended      int // fibers suspended now, through a Suspension or an FD's wait
}

func (c *counters) callbacks() uint64 {
	var n uint64
	for _, k := range c.byType {
		n += k
	}
	return n
}

// metricsState is the rest of the loop's side of Metrics: where the time
// went, timer lateness, the slowest run, and the copy it publishes.
type metricsState struct {
	running  int64 // ns in runs that have ended (or paused for main)
	idle     int64 // ns blocked in the driver
	runStart int64 // when the run in progress began; valid while inRun
	inRun    bool
	lateness Histogram
	slowest  SlowestCallback

	mu       sync.Mutex
	pub      Metrics // guarded by mu
	pubAt    int64   // the loop's clock as of which pub was filled; guarded by mu
	pubInRun bool    // pub was published during a run; guarded by mu
	pubSleep bool    // pub was published before a blocking wait; guarded by mu
}

// fill writes the loop's current metrics into m (now is the loop's clock);
// the histogram is copied only if it has changed.
func (l *Loop) fill(m *Metrics, now int64) {
	s := &l.m
	running := s.running
	if s.inRun {
		running += now - s.runStart
	}
	m.Running, m.Idle = time.Duration(running), time.Duration(s.idle)
	c := &l.counts
	m.Ticks, m.FDEvents = c.ticks, c.fdEvents
	m.CallbacksByType = c.byType
	m.Callbacks = c.callbacks()
	m.Microtasks, m.Posts = c.microtasks, c.posts
	m.PostsPending = l.postQueued
	m.FibersSuspended = c.suspended
	if m.TimerLateness.Count != s.lateness.Count {
		m.TimerLateness = s.lateness
	}
	m.Slowest = s.slowest
}

func (l *Loop) publishNow() { l.publish(l.now(), false) }

func (l *Loop) idleSince(slept int64) { l.m.idle += l.now() - slept }

// publish makes the current metrics visible to other goroutines; sleeping
// says the loop is about to block in the driver.
func (l *Loop) publish(now int64, sleeping bool) {
	s := &l.m
	s.mu.Lock()
	l.fill(&s.pub, now)
	s.pubAt, s.pubInRun, s.pubSleep = now, s.inRun, sleeping
	s.mu.Unlock()
}

// runBegins and runPauses keep Running: a run begins with loopTask and
// pauses when it returns, or when Run returns an uncaught error with the
// loop fiber parked mid-tick (Run goes on from there). A main Suspend that
// is resumed parks the loop fiber too, but the run goes on when main
// suspends or runs again: main's work in between counts as busy, as a
// callback's would, and costs no clock read.
func (l *Loop) runBegins() {
	l.m.runStart = l.now()
	l.m.inRun = true
}

func (l *Loop) runPauses() {
	now := l.now()
	l.m.running += now - l.m.runStart
	l.m.inRun = false
	l.publish(now, false)
}

// Metrics returns the loop's metrics (see Metrics for how fresh they are).
// Unlike most of the loop's methods it is safe from any goroutine; from
// another one it costs a mutex and a copy of about 1 KiB.
func (l *Loop) Metrics() Metrics {
	var m Metrics
	if l.InFiber() {
		l.fill(&m, l.now())
	} else {
		s := &l.m
		s.mu.Lock()
		m = s.pub
		at, inRun, sleeping := s.pubAt, s.pubInRun, s.pubSleep
		s.mu.Unlock()
		m.Age = max(time.Since(l.epoch)-time.Duration(at), 0)
		if inRun {
			// The run has gone on since: busy, or still in the wait that
			// began when these were published.
			m.Running += m.Age
			if sleeping && l.sleeping.Load() {
				m.Idle += m.Age
			}
		}
	}
	l.postMu.Lock()
	m.PostsPending += len(l.posts)
	l.postMu.Unlock()
	return m
}
