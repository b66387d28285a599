package core

import (
	"math"
	"time"
)

// Expired reports whether the deadline of direction mode has passed.
func (p *FD) Expired(mode Interest) bool {
	// Inlined (at the budget's edge: keep it this small), a read without a
	// deadline reads no clock and calls nothing.
	if mode == Read && p.rd.deadline.Load() == 0 {
		return false
	}
	return p.expiredIn(mode)
}

func (p *FD) expiredIn(mode Interest) bool { return p.dir(mode).expired(p.l) }

func (d *fdDir) expired(l *Loop) bool {
	dl := d.deadline.Load()
	return dl != 0 && l.clock() >= dl
}

// testHookDeadline, when set, runs in SetDeadline just after its clock
// reading, as a preemption there would.
var testHookDeadline func()

// clock is the loop's monotonic clock for deadlines, never 0; safe from
// any goroutine.
func (l *Loop) clock() int64 { return int64(time.Since(l.epoch)) + 1 }

// SetDeadline sets the deadline of the directions in mode (Read, Write or
// both); the zero time removes it. A wait in progress sees the change: a
// deadline that has passed ends it with os.ErrDeadlineExceeded.
func (p *FD) SetDeadline(mode Interest, t time.Time) {
	var v int64
	if !t.IsZero() {
		// One reading of the clock for both: a goroutine preempted
		// between two would set the deadline early by the time it lost.
		at := time.Now()
		if testHookDeadline != nil {
			testHookDeadline()
		}
		now := int64(at.Sub(p.l.epoch)) + 1
		d := int64(t.Sub(at))
		switch {
		case d > 0 && now > math.MaxInt64-d:
			v = math.MaxInt64
		case d <= 0:
			v = 1 // passed
		default:
			v = now + d
		}
	}
	// Stored before waiting is read, as park sets waiting before it
	// reads the deadline: one of the two sees the other.
	waiting := false
	if mode&Read != 0 {
		p.rd.deadline.Store(v)
		waiting = p.rd.waiting.Load()
	}
	if mode&Write != 0 {
		p.wr.deadline.Store(v)
		waiting = waiting || p.wr.waiting.Load()
	}
	if waiting {
		p.onLoop(p.syncTimers)
	}
}

// syncTimers runs on the loop after a deadline changed while someone
// waited: a passed deadline wakes the waiter, a moved one re-arms the
// timer.
func (p *FD) syncTimers() {
	if p.shut.Load() || p.l.closing {
		return
	}
	for _, d := range [2]*fdDir{&p.rd, &p.wr} {
		switch {
		case !d.w.timed():
		case d.expired(p.l):
			p.wakeSlot(d, false)
		default:
			p.armTimer(d)
		}
	}
}

// armTimer makes d's timer node fire at its deadline. A node left armed
// after its waiter woke costs a tick at most when it fires for nobody;
// removing it at every wake would cost a heap operation per wait.
func (p *FD) armTimer(d *fdDir) {
	at := d.deadline.Load()
	if at == 0 {
		p.disarm(d)
		return
	}
	l := p.l
	tm := &p.more().tm[p.side(d)]
	c := *tm
	if c == nil {
		c = &callback{typ: typeIOTimer, heapIdx: -1}
		c.fn = func(CallbackID) {
			if d.w.timed() {
				p.wakeSlot(d, true)
			}
		}
		*tm = c
	} else if c.heapIdx >= 0 {
		if c.deadline == at-1 {
			return
		}
		l.timers.remove(c)
	}
	c.deadline = at - 1 // the clock's plus one
	l.timerSeq++
	c.seq = l.timerSeq
	l.timers.push(c)
}

func (p *FD) disarm(d *fdDir) {
	if p.slow == nil {
		return
	}
	if c := p.slow.tm[p.side(d)]; c != nil && c.heapIdx >= 0 {
		p.l.timers.remove(c)
	}
}
