package core

import "slices"

// fdState is what the loop knows of one fd: its active watchers in order of
// activation and its registration with the driver. gen goes into the token
// of every registration, so an event that a driver reports for an older
// registration of the same number (the fd was closed and reused) is dropped.
type fdState struct {
	watchers   []*callback
	gen        uint32
	registered bool
	interest   Interest
}

func token(fd int, gen uint32) Token { return Token(uint64(gen)<<32 | uint64(uint32(fd))) }

func (l *Loop) fdState(fd int) *fdState {
	if fd >= len(l.fds) {
		n := max(2*len(l.fds), fd+1, 64)
		fds := make([]fdState, n)
		copy(fds, l.fds)
		l.fds = fds
	}
	return &l.fds[fd]
}

func (l *Loop) activateFD(c *callback) {
	fd := int(c.fd)
	st := l.fdState(fd)
	st.watchers = append(st.watchers, c)
	l.syncFD(fd, st)
}

func (l *Loop) deactivateFD(c *callback) {
	fd := int(c.fd)
	st := &l.fds[fd]
	for i, w := range st.watchers {
		if w == c {
			st.watchers = slices.Delete(st.watchers, i, i+1)
			break
		}
	}
	l.syncFD(fd, st)
}

// syncFD brings the driver's registration of fd in line with its watchers.
// A driver error drops the fd: its watchers are disabled and the error
// handler (or Run) learns which fd and callbacks.
func (l *Loop) syncFD(fd int, st *fdState) {
	var in Interest
	for _, w := range st.watchers {
		if w.typ == TypeReadable {
			in |= Read
		} else {
			in |= Write
		}
	}
	var err error
	switch {
	case len(st.watchers) == 0:
		if st.registered {
			st.registered = false
			l.watching--
			// An error here means the fd is gone already (closed before its
			// watchers were cancelled); there is nothing left to undo.
			_ = l.driver.Deregister(fd)
		}
	case !st.registered:
		st.gen++
		if err = l.driver.Register(fd, token(fd, st.gen), in); err == nil {
			st.registered = true
			st.interest = in
			l.watching++
		}
	case in != st.interest:
		if err = l.driver.Modify(fd, token(fd, st.gen), in); err == nil {
			st.interest = in
		}
	}
	if err != nil {
		l.dropFD(fd, st, err, true)
	}
}

// dropFD stops watching fd after a driver error or a Closed event (then the
// driver has forgotten it already) and reports its watchers.
func (l *Loop) dropFD(fd int, st *fdState, cause error, deregister bool) {
	ws := st.watchers
	st.watchers = nil
	if st.registered {
		st.registered = false
		l.watching--
		if deregister {
			_ = l.driver.Deregister(fd)
		}
	}
	if len(ws) == 0 {
		return
	}
	fe := &FDError{FD: fd, Err: cause}
	for _, c := range ws {
		fe.IDs = append(fe.IDs, c.id)
		c.active = false
		l.disable(c)
	}
	l.pendingErrs = append(l.pendingErrs, &UncaughtError{Value: fe, ID: ws[0].id, Type: ws[0].typ})
}

// dispatchEvents queues the watchers of every fd the driver reported.
func (l *Loop) dispatchEvents(evs []Event) {
	for i := range evs {
		ev := &evs[i]
		fd := int(uint32(ev.Token))
		if fd >= len(l.fds) {
			continue
		}
		st := &l.fds[fd]
		if !st.registered || st.gen != uint32(ev.Token>>32) {
			continue // stale: an older registration of this number
		}
		if ev.Closed {
			l.dropFD(fd, st, ErrFDClosed, false)
			continue
		}
		for _, c := range st.watchers {
			if c.typ == TypeReadable && ev.Ready&Read != 0 || c.typ == TypeWritable && ev.Ready&Write != 0 {
				l.enqueue(c)
			}
		}
	}
}
