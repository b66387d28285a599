//go:build unix || windows

package socket

import (
	"math"
	"time"
)

// Deadlines are kept as monotonic nanoseconds since the package started
// (the Go runtime converts them to its nanotime the same way), so that
// the check is one clock read and stepping the wall clock moves nothing.
var monoBase = time.Now()

// nowMono is never 0, which stands for "no deadline".
func nowMono() int64 { return int64(time.Since(monoBase)) + 1 }

// monoDeadline converts t; the zero time is 0, a past one is at most now.
func monoDeadline(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	now := nowMono()
	d := int64(time.Until(t))
	switch {
	case d > 0 && now > math.MaxInt64-d:
		return math.MaxInt64
	case now+d < 1:
		return 1
	}
	return now + d
}

// expired reports whether the direction's deadline has passed. It is
// small enough to be inlined: most calls have no deadline and read no
// clock.
func (d *dir) expired() bool {
	dl := d.deadline.Load()
	return dl != 0 && passed(dl)
}

// passed reports whether the monotonic instant t has come.
//
//go:noinline
func passed(t int64) bool { return nowMono() >= t }

// setDeadline stores the deadlines and, if someone waits in a direction it
// changed, has the loop look again (syncDirs): an expired deadline wakes
// them, a moved one re-arms the timer.
func (fd *netFD) setDeadline(t time.Time, r, w bool) error {
	if !fd.incref() {
		return fd.closedErr()
	}
	defer fd.decref()
	v := monoDeadline(t)
	waiting := false
	if r {
		fd.rd.deadline.Store(v)
		waiting = fd.rd.queued.Load() > 0
	}
	if w {
		fd.wr.deadline.Store(v)
		waiting = waiting || fd.wr.queued.Load() > 0
	}
	if waiting {
		// The loop wakes them if it has passed, or re-arms their timer:
		// from a fiber in a microtask of this tick, allocating nothing;
		// from elsewhere posted.
		if fd.l.InFiber() {
			fd.queueSync()
		} else {
			_ = fd.l.Post(fd.syncDirs)
		}
	}
	return nil
}
