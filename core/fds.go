package core

import (
	"fmt"
	"slices"
)

// A watcher belongs to the open file it was registered on, not to the
// number: a watched fd closed behind the loop's back and its number taken by
// a new file (accept and socket take the lowest free number at once) must
// not hand the old watchers to the new file, nor the new watcher to the old
// file's fate. The loop therefore records the identity of the file behind a
// watcher when it is made (one fstat per OnReadable/OnWritable, none per
// event), keeps every active watcher of a number with the file they share,
// and compares identities where a mismatch can show: when a watcher of
// another file joins a watched number, and in the sweep (sweep.go).

// fileID identifies an open file: device and inode.
type fileID struct{ dev, ino uint64 }

// fdState is what the loop knows of one fd: its active watchers in order of
// activation (all of them watchers of file), and its registration with the
// driver. gen goes into the token of every registration, so an event that a
// driver reports for an older registration of the same number is dropped.
// The table holds one per number up to the highest watched, so a number
// that only an FD waits on (a connection) pays for no watcher list.
//
// A watcher that has been active holds the registration until it is
// cancelled (held counts them): disabling it takes its interest away
// (Modify, possibly to 0) but does not deregister the fd, so code that
// waits on an fd again and again, enabling and disabling one watcher,
// registers it with the driver once for its life. That matters where a
// registration costs resources (netpoll dups the fd: re-registering fails
// once the process is out of descriptors).
type fdState struct {
	ws         *[]*callback // made at the number's first watcher
	file       fileID
	gen        uint32
	registered bool
	interest   Interest
	held       int32
	pd         *FD // the loop's own wait on this number (fdwait.go), if any
}

func (st *fdState) watchers() []*callback {
	if st.ws == nil {
		return nil
	}
	return *st.ws
}

func token(fd int, gen uint32) Token { return Token(uint64(gen)<<32 | uint64(uint32(fd))) }

// fdState grows the table as append grows a large slice (by a quarter):
// descriptors are numbered from the lowest free one, so the table follows
// the most a process had open, and what it holds beyond that is waste.
func (l *Loop) fdState(fd int) *fdState {
	if fd >= len(l.fds) {
		n := max(len(l.fds)+len(l.fds)/4, fd+1, 64)
		fds := make([]fdState, n)
		copy(fds, l.fds)
		l.fds = fds
	}
	return &l.fds[fd]
}

// setFile records the identity of the file fd names. A watcher of an fd
// that was not open keeps fstat's error out of line instead, as that path
// is rare.
func (c *callback) setFile(fd int) {
	id, err := identify(fd)
	if err != nil {
		c.notOpen = true
		c.more().notOpen = unwatchable(fd, err)
		return
	}
	c.file = id
}

func (l *Loop) activateFD(c *callback) {
	fd := int(c.fd)
	st := l.fdState(fd)
	if c.notOpen {
		l.reportWatchers(fd, []*callback{c}, c.extra.notOpen)
		return
	}
	if st.registered && !sameFile(&st.file, c.file) {
		// Two files under one number: the one it names now keeps it.
		cur, err := identify(fd)
		if err != nil || !sameFile(&st.file, cur) {
			l.dropFD(fd, st, errReused(err), true)
		}
		if cf := c.file; err != nil || !sameFile(&cf, cur) {
			l.reportWatchers(fd, []*callback{c}, errReused(err))
			return
		}
	}
	if !st.registered {
		st.file = c.file
	}
	if st.ws == nil {
		st.ws = new([]*callback)
	}
	*st.ws = append(*st.ws, c)
	l.syncFD(fd, st)
	if st.registered && c.active && c.held != heldBy(st) {
		c.held = heldBy(st)
		st.held++
	}
}

// A watcher's held says which registration it holds: the generation of
// its fd's registration, plus one (0: none).
func heldBy(st *fdState) uint64 { return uint64(st.gen) + 1 }

// releaseHold lets go of the registration c holds, before c is cancelled;
// it reports whether c held one.
func (l *Loop) releaseHold(c *callback) bool {
	if c.held == 0 || int(c.fd) >= len(l.fds) {
		return false
	}
	st := &l.fds[c.fd]
	held := st.registered && c.held == heldBy(st)
	c.held = 0
	if held {
		st.held--
	}
	return held
}

func (l *Loop) deactivateFD(c *callback) {
	fd := int(c.fd)
	st := &l.fds[fd]
	if i := slices.Index(st.watchers(), c); i >= 0 {
		*st.ws = slices.Delete(*st.ws, i, i+1)
	}
	l.syncFD(fd, st)
}

// syncFD brings the driver's registration of fd in line with its watchers.
// A driver error drops the fd: its watchers are disabled and the error
// handler (or Run) learns which fd and callbacks.
func (l *Loop) syncFD(fd int, st *fdState) {
	var in Interest
	if st.pd != nil {
		in = st.pd.in
	}
	for _, w := range st.watchers() {
		if w.typ == TypeReadable {
			in |= Read
		} else {
			in |= Write
		}
	}
	l.sweep.active = true
	var err error
	switch {
	case in == 0 && !st.registered:
		// Nothing to watch yet.
	case in == 0 && st.held == 0 && st.pd == nil:
		st.registered = false
		l.watching--
		// An error here means the fd is gone already (closed before its
		// watchers were cancelled); there is nothing left to undo.
		_ = l.driver.Deregister(fd)
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

// dropFD stops watching fd after a driver error, a Closed event (then the
// driver has forgotten it already) or a sweep, and reports its watchers.
func (l *Loop) dropFD(fd int, st *fdState, cause error, deregister bool) {
	if p := st.pd; p != nil {
		p.fail(fmt.Errorf("eventloop: fd %d: %w", fd, cause))
	}
	l.reportWatchers(fd, l.forgetFD(fd, st, deregister), cause)
}

// forgetFD takes fd out of the loop's books in one driver call whatever the
// number of its watchers (deregister false: the driver has forgotten it
// already), and returns the watchers that were active, for the caller to
// report or cancel. A Deregister error means the fd is gone already (closed
// before its watchers were cancelled): there is nothing left to undo.
func (l *Loop) forgetFD(fd int, st *fdState, deregister bool) []*callback {
	ws := st.watchers()
	st.ws = nil
	st.held = 0
	if st.registered {
		st.registered = false
		l.watching--
		if deregister {
			_ = l.driver.Deregister(fd)
		}
	}
	return ws
}

// reportWatchers disables ws, the watchers of fd, and queues the FDError
// that names them for the error handler (or Run).
func (l *Loop) reportWatchers(fd int, ws []*callback, cause error) {
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

// errReused is the cause for watchers whose file no longer sits at their
// number: closed (err from fstat), or closed and the number reused.
func errReused(err error) error {
	if err != nil {
		return fmt.Errorf("%w (%s: %w)", ErrFDClosed, identifyCall, err)
	}
	return fmt.Errorf("%w; its number now names another file", ErrFDClosed)
}

// dispatchEvents queues the watchers of every fd the driver reported.
func (l *Loop) dispatchEvents(evs []Event) {
	if len(evs) > 0 {
		l.sweep.active = true
	}
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
		if p := st.pd; p != nil {
			if ev.Errno != 0 {
				p.errno.Store(uintptr(ev.Errno))
			}
			if ev.Ready&p.in&Read != 0 {
				l.dirReady(p, &p.rd)
			}
			if ev.Ready&p.in&Write != 0 {
				l.dirReady(p, &p.wr)
			}
		}
		for _, c := range st.watchers() {
			if c.typ == TypeReadable && ev.Ready&Read != 0 || c.typ == TypeWritable && ev.Ready&Write != 0 {
				l.enqueue(c)
			}
		}
	}
}
