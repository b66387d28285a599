package core

import (
	"sync/atomic"
	"time"
)

// WithoutFileIDs makes a loop that does not fstat the fds it watches: for
// the fake drivers of core's tests, whose fds are numbers that name no file.
func WithoutFileIDs() Option { return func(l *Loop) { l.noFileIDs = true } }

// SetDeadlineHook sets what SetDeadline runs just after it reads the
// clock; the func returned puts it back.
func SetDeadlineHook(f func()) func() {
	testHookDeadline = f
	return func() { testHookDeadline = nil }
}

// FDDeadline is the deadline p keeps for mode, and the one t should give,
// both on the loop's clock.
func FDDeadline(p *FD, mode Interest, t time.Time) (kept, want int64) {
	return p.dir(mode).deadline.Load(), int64(t.Sub(p.l.epoch)) + 1
}

// WatchdogParked reports whether l's watchdog goroutine sleeps until the
// next run (it parks after two polls find no run).
func WatchdogParked(l *Loop) bool { return l.wd != nil && l.wd.parked.Load() }

// SetLockWaitHook sets what Lock runs between a caller counting itself as
// a waiter and its wait; the func returned puts it back.
func SetLockWaitHook(f func()) func() {
	testHookLockWait = f
	return func() { testHookLockWait = nil }
}

// SetWatchdogDumpHook sets what the watchdog runs as it begins to take a
// stack; the func returned puts it back.
func SetWatchdogDumpHook(f func()) func() {
	testHookWatchdogDump = f
	return func() { testHookWatchdogDump = nil }
}

// WatchdogFullDumps is how many stacks the watchdogs of the process have
// cut out of a dump of all goroutines.
func WatchdogFullDumps() int64 { return fullDumps.Load() }

// WithBlockedLooks sets what the blocked-call sampler calls after each look
// at a fiber's stack (and after the report it made, if it made one): the
// stack, and whether it was found blocked. It follows WithBlockedReport.
func WithBlockedLooks(f func(stack string, blocked bool)) Option {
	return func(l *Loop) {
		if l.blk != nil {
			l.blk.examined = f
		}
	}
}

// BlockedReportOn reports whether l makes blocked-call reports.
func BlockedReportOn(l *Loop) bool { return l.blk != nil }

// FDTimer reports whether the deadline timer of p's direction mode is in
// its loop's timer heap, and its arming number, which orders the timers
// due at one instant.
func FDTimer(p *FD, mode Interest) (armed bool, seq uint64) {
	if p.slow == nil {
		return false, 0
	}
	c := p.slow.tm[p.side(p.dir(mode))]
	if c == nil {
		return false, 0
	}
	return c.heapIdx >= 0, c.seq
}

// Timers is how many timers l's heap holds.
func Timers(l *Loop) int { return len(l.timers) }

// FDLockWaiters is how many calls p counts as waiting for the lock of
// direction mode.
func FDLockWaiters(p *FD, mode Interest) uint64 {
	_, wait, mask := lockBits(mode)
	return p.state.Load() & mask / wait
}

// FDFreeTurns is how many turns of direction mode were passed and not yet
// taken.
func FDFreeTurns(p *FD, mode Interest) int32 { return p.turnsOf(p.dir(mode)).free }

// MadeAgo makes a loop whose clock reads d at its making, as if it had been
// made d ago: a clock value confused with a duration is then d off.
func MadeAgo(d time.Duration) Option { return func(l *Loop) { l.epoch = l.epoch.Add(-d) } }

// PublishEvery is how many ticks may pass between two publications of a
// loop's metrics when it does not block.
const PublishEvery = publishEvery

// BlockedSamplerParked reports whether l's blocked-call sampler has asked
// the loop to wake it: it sleeps until the loop runs again.
func BlockedSamplerParked(l *Loop) bool { return atomic.LoadUint32(&l.obs)&blkParked != 0 }

// BlockedProbeSet reports whether l's blocked-call sampler is probing the
// run in progress: it has asked to be told when that run ends.
func BlockedProbeSet(l *Loop) bool { return atomic.LoadUint32(&l.obs)&blkProbe != 0 }

// The sweep's schedule (sweep.go): a polling loop reads the clock for it
// every SweepStride-th poll, a pass checks SweepChunk fds per Wait, and an
// idle loop's interval stops doubling at SweepMax.
const (
	SweepStride = sweepStride
	SweepChunk  = sweepChunk
	SweepMax    = sweepMax
)

// FDHasSlow reports whether p has made its record of what only deadlines,
// contended locks and a Close that waits need.
func FDHasSlow(p *FD) bool { return p.slow != nil }
