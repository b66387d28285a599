package core

import "time"

// The sweep finds watched fds closed behind the loop's back. Most kernels
// say nothing when that happens: epoll(7) drops the registration of a file
// whose last descriptor is closed (its Q6), kqueue removes the knotes, the
// netpoll driver watches a dup that keeps the file open, and poll(2) need
// not wake for a close in another thread. A loop waiting only for such an
// fd would hang, and one whose number was reused would run the old
// watchers for the new file. So the loop checks, for every registered fd,
// that the number still names the file its watchers were made for (one
// fstat each), and drops the watchers of those that do not: they are
// disabled and reported (FDError wrapping ErrFDClosed), and the driver is
// told to forget the number. A driver that learns of a close from its
// kernel (POLLNVAL, EBADF) reports it at once and the sweep never sees it.
//
// The schedule costs nothing per event: the clock is read before a Wait
// that would block (and on every sweepStride-th Wait that polls), and a
// blocking Wait is capped at the next sweep only while fds are watched. The
// interval is sweepMin after any activity (a registration change or an
// event: closes follow activity far more often than silence), doubles on
// every idle sweep up to sweepMax, and never drops below sweepCostFactor
// times the time the last pass took, so that sweeping thousands of fds
// costs about 1% of the loop's time. A close is therefore noticed within
// sweepMin to sweepMax (more only when one sweep takes over sweepMin /
// sweepCostFactor), and an idle loop with watched fds wakes once a second.
// Code that owns its fds closes them with Loop.CloseFD and never waits for
// the sweep.
//
// A sweep checks sweepChunk fds at a time and goes on at the next Wait, so
// that a loop watching many fds (idle connections) is never held up by one
// pass of an fstat each: a pass over 19 744 fds took 13-19 ms here, over
// 100 000 it would take about 70, and every timer due meanwhile waited.
const (
	sweepMin        = 10 * time.Millisecond
	sweepMax        = time.Second
	sweepCostFactor = 100
	sweepStride     = 256
	sweepChunk      = 1024
)

type sweeper struct {
	next     int64 // the loop's clock (ns) at which the next sweep is due
	interval time.Duration
	active   bool // events or registration changes since the last sweep
	polls    uint32

	// A pass in progress: the next fd to check, the registered fds
	// found so far, and the time its chunks took.
	cursor, found int
	spent         int64
}

// sweepBefore runs the sweep if it is due, before a Wait with timeout, and
// returns the timeout capped at the next sweep. now is the clock reading
// dispatch made before a blocking Wait (0: none; a poll reads the clock on
// every sweepStride-th call only).
func (l *Loop) sweepBefore(timeout time.Duration, now int64) time.Duration {
	if !haveFileID || l.noFileIDs {
		return timeout
	}
	s := &l.sweep
	if timeout == 0 {
		s.polls++
		if s.polls%sweepStride != 0 {
			return 0
		}
	}
	if now == 0 {
		now = l.now()
	}
	if s.interval == 0 {
		s.interval = sweepMin
		s.next = now + int64(sweepMin)
	}
	if now >= s.next {
		l.sweepFDs(now)
		now = l.lastNow
		if len(l.pendingErrs) > 0 {
			return 0 // report them now, not after a blocking Wait
		}
	}
	if timeout == 0 || l.watching == 0 {
		return timeout
	}
	left := time.Duration(max(s.next-now, 0))
	if timeout < 0 || timeout > left {
		return left
	}
	return timeout
}

// sweepFDs checks the next chunk of registered fds, dropping the watchers
// of those whose number no longer names their file; at the end of a pass
// it schedules the next, and until then the next chunk is due at once.
func (l *Loop) sweepFDs(start int64) {
	s := &l.sweep
	fd, checked := s.cursor, 0
	for ; fd < len(l.fds) && s.found < l.watching && checked < sweepChunk; fd++ {
		st := &l.fds[fd]
		if !st.registered {
			continue
		}
		checked++
		s.found++
		if id, err := identify(fd); err != nil || !sameFile(&st.file, id) {
			l.dropFD(fd, st, errReused(err), true)
			s.found--
		}
	}
	end := l.now()
	s.spent += end - start
	if fd < len(l.fds) && s.found < l.watching {
		s.cursor, s.next = fd, end
		return
	}
	if s.active {
		s.interval = sweepMin
	} else {
		s.interval = min(2*s.interval, sweepMax)
	}
	s.interval = max(s.interval, sweepCostFactor*time.Duration(s.spent))
	s.active = false
	s.next = end + int64(s.interval)
	s.cursor, s.found, s.spent = 0, 0, 0
}
