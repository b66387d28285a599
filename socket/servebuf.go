//go:build unix || windows

package socket

import (
	"sync"

	"github.com/revoltgo/eventloop/core"
)

// What the served conns of one loop share: the buffer their reads go
// into, and the list that the loop's Close ends.
//
// A run of a Handler is lent part of the buffer (its in). Most runs
// return before the next read, give their part back, and every read
// starts at the buffer's start: one buffer per loop, as nbio's and gnet's.
// A run that suspends keeps its part meanwhile, and the next reads go
// behind it; when too little is left behind the parts lent, the loop
// takes a fresh buffer, and the old one goes once its last part comes
// back. So a suspended run holds the bytes it was handed (and at worst
// the rest of a buffer that runs like it share), not a buffer of its own.
const (
	serveBufSize = 64 << 10
	// serveMinRead is the least room a read gets behind the parts lent.
	serveMinRead = 16 << 10
)

// readBuf is one buffer of a loop's served conns.
type readBuf struct {
	b    []byte
	top  int // the end of the highest part lent
	lent int // parts lent: runs under way that were handed part of b
}

// loopServe is what a loop's served conns share; only that loop's fibers
// touch it.
type loopServe struct {
	l     *core.Loop
	cur   *readBuf // where reads go
	spare *readBuf // a buffer given back whole, for the next fresh one
	head  *serveState
}

// served finds a loop's loopServe: made at the loop's first Serve and
// dropped at its Close. It is the package's one table of loops, since a
// loop has no place for its users' state; loops never share an entry.
var served struct {
	sync.Mutex
	loops map[*core.Loop]*loopServe
}

// loopServeOf returns l's loopServe, made at its first call; on the loop.
// A fiber that waits for the loop's Close comes with it (guard).
func loopServeOf(l *core.Loop) *loopServe {
	served.Lock()
	ls := served.loops[l]
	made := ls == nil
	if made {
		ls = &loopServe{l: l}
		if served.loops == nil {
			served.loops = make(map[*core.Loop]*loopServe)
		}
		served.loops[l] = ls
	}
	served.Unlock()
	if made {
		l.Queue(ls.guard)
	}
	return ls
}

// guard suspends until the loop's Close unwinds it, and then ends the
// conns that wait for bytes: they hold no fiber that Close could unwind,
// and no descriptor may outlive the loop. A suspended fiber does not keep
// Run going, so it costs the loop one fiber and nothing else.
func (ls *loopServe) guard() {
	defer ls.loopClosed()
	ls.l.Suspension().Suspend() // nothing resumes it: it returns ErrLoopClosed
}

func (ls *loopServe) loopClosed() {
	served.Lock()
	delete(served.loops, ls.l)
	served.Unlock()
	var waiting []*serveState
	for s := ls.head; s != nil; s = s.next {
		if !s.busy {
			waiting = append(waiting, s)
		}
	}
	// A run under way ends in its own fiber, which Close unwinds too.
	for _, s := range waiting {
		if !s.busy && s.state.Load() == serving {
			s.fd.byLoop.Store(true)
			s.end(errLoopClosed, true)
		}
	}
	ls.cur, ls.spare = nil, nil
}

func (ls *loopServe) add(s *serveState) {
	s.prev, s.next, s.listed = nil, ls.head, true
	if ls.head != nil {
		ls.head.prev = s
	}
	ls.head = s
}

func (ls *loopServe) remove(s *serveState) {
	if !s.listed {
		return
	}
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		ls.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	}
	s.prev, s.next, s.listed = nil, nil, false
}

// buffer returns the buffer to read into, with at least need bytes free
// behind its top (need is at most serveBufSize).
func (ls *loopServe) buffer(need int) *readBuf {
	r := ls.cur
	if r == nil || len(r.b)-r.top < need {
		r, ls.spare = ls.spare, nil
		if r == nil {
			r = &readBuf{b: make([]byte, serveBufSize)}
		}
		ls.cur = r
	}
	return r
}

// release gives back the part [start, end) of r.
func (ls *loopServe) release(r *readBuf, start, end int) {
	r.lent--
	switch {
	case r.lent == 0:
		r.top = 0
		if r != ls.cur && ls.spare == nil {
			ls.spare = r
		}
	case r.top == end:
		r.top = start // the highest part: what is behind it is free
	}
}
