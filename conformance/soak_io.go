package conformance

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// fds: request/response pairs driven by a fiber on one side and a watcher
// on the other, and bulk pairs streaming both ways at once.

// startEcho starts the echoing side of e (a watcher that writes back what
// it reads) and the fiber that sends numbered requests from the other side
// and suspends until the answer is readable. Half the pairs register and
// cancel a watcher for every wait, which churns the driver's registrations
// (and, on netpoll, its dup'ed fds); the other half enable and disable one.
func (w *soakLoad) startEcho(e *soakEcho) {
	l := w.l
	var buf [512]byte
	e.watchB = l.OnReadable(e.b, func(id core.CallbackID, fd int) {
		n, err := soakRead(fd, buf[:])
		if err == soakErrAgain {
			return
		}
		if err != nil || n == 0 {
			w.fail("echo read: %d, %v", n, err)
			l.Cancel(id)
			return
		}
		// At most one 8-byte request is in flight: the write never blocks.
		if m, err := soakWrite(fd, buf[:n]); m != n || err != nil {
			w.fail("echo write: %d of %d, %v", m, n, err)
		}
	})
	if e.persistent {
		e.watchA = l.OnReadable(e.a, func(core.CallbackID, int) { e.s.Resume(nil) })
		l.Disable(e.watchA)
		w.c.watchersAdded++
	}
	w.c.watchersAdded++
	w.goFiber(func() {
		defer func() {
			l.Cancel(e.watchB)
			w.c.watchersCancelled++
			if e.persistent {
				l.Cancel(e.watchA)
				w.c.watchersCancelled++
			}
		}()
		for !w.stopping {
			if !w.echoRound(e) {
				return
			}
			if w.rng.IntN(2) == 0 {
				w.sleep(time.Duration(w.rng.IntN(500)) * time.Microsecond)
			}
		}
	})
}

func (w *soakLoad) echoRound(e *soakEcho) bool {
	var req, got [8]byte
	binary.LittleEndian.PutUint64(req[:], e.rounds+1)
	if n, err := soakWrite(e.a, req[:]); n != len(req) || err != nil {
		w.fail("request write: %d, %v", n, err)
		return false
	}
	for n := 0; n < len(got); {
		if err := w.waitReadable(e); err != nil {
			w.fail("waiting for the answer: %v", err)
			return false
		}
		m, err := soakRead(e.a, got[n:])
		if err == soakErrAgain {
			continue
		}
		if err != nil || m == 0 {
			w.fail("answer read: %d, %v", m, err)
			return false
		}
		n += m
	}
	if !bytes.Equal(got[:], req[:]) {
		w.fail("echo answered %x to %x", got, req)
		return false
	}
	e.rounds++
	w.c.echoRounds++
	return true
}

// waitReadable suspends the current fiber until e.a is readable.
func (w *soakLoad) waitReadable(e *soakEcho) error {
	l := w.l
	s := l.Suspension()
	if e.persistent {
		e.s = s
		if err := l.Enable(e.watchA); err != nil {
			return err
		}
		_, err := s.Suspend()
		l.Disable(e.watchA)
		return err
	}
	id := l.OnReadable(e.a, func(core.CallbackID, int) { s.Resume(nil) })
	w.c.watchersAdded++
	_, err := s.Suspend()
	l.Cancel(id)
	w.c.watchersCancelled++
	return err
}

// sleep suspends the current fiber for d, resumed by a Delay.
func (w *soakLoad) sleep(d time.Duration) {
	s := w.l.Suspension()
	w.l.Delay(d, func(core.CallbackID) { s.Resume(nil) })
	if _, err := s.Suspend(); err != nil {
		w.fail("sleep: %v", err)
	}
}

// startStream registers both ends of st. The writer writes a chunk of the
// stream's pattern each time it runs and disables itself until the pacer
// enables it again, so that the loop also blocks between bursts; the reader
// checks every byte against the pattern and ends once stopping is set and
// it has read all that was written.
func (w *soakLoad) startStream(st *soakStream) {
	l := w.l
	st.w = l.OnWritable(st.from, func(id core.CallbackID, fd int) {
		size := 1 + w.rng.IntN(soakChunkMax)
		off := int((st.sent + uint64(st.salt)) % soakPatternSpan)
		n, err := soakWrite(fd, w.pattern[off:off+size])
		switch {
		case err == soakErrAgain:
		case err != nil:
			w.fail("bulk write: %v", err)
		default:
			st.sent += uint64(n)
		}
		l.Disable(id)
	})
	buf := make([]byte, 2*soakChunkMax)
	st.r = l.OnReadable(st.to, func(id core.CallbackID, fd int) {
		n, err := soakRead(fd, buf)
		if err == soakErrAgain {
			return
		}
		if err != nil || n == 0 {
			w.fail("bulk read: %d, %v", n, err)
			l.Cancel(id)
			return
		}
		// The pattern repeats every soakPatternSpan bytes: a lost, repeated
		// or reordered chunk shows as a mismatch at once.
		for p := buf[:n]; len(p) > 0; {
			off := int((st.recv + uint64(st.salt)) % soakPatternSpan)
			k := min(len(p), soakChunkMax)
			if !bytes.Equal(p[:k], w.pattern[off:off+k]) {
				w.fail("bulk stream %d->%d corrupt at byte %d", st.from, st.to, st.recv)
				l.Cancel(id)
				return
			}
			st.recv += uint64(k)
			w.c.bulkBytes += uint64(k)
			p = p[k:]
		}
		w.finishStream(st)
	})
	w.c.watchersAdded += 2
}

// finishStream cancels st's reader once nothing more is coming.
func (w *soakLoad) finishStream(st *soakStream) {
	if st.wDone && st.recv == st.sent && st.r != 0 {
		w.l.Cancel(st.r)
		st.r = 0
		w.c.watchersCancelled++
	}
}

// pace lets the bulk writers write again.
func (w *soakLoad) pace(core.CallbackID) {
	for _, st := range w.streams {
		if err := w.l.Enable(st.w); err != nil {
			w.fail("Enable of a bulk writer: %v", err)
		}
	}
}
