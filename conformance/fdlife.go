//go:build unix || windows

package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fdLifeCases pin DESIGN section 5, "A watcher belongs to the open file it
// was registered on, not to the number", and Loop.CloseFD.
func fdLifeCases() []Case {
	return []Case{
		// A watched fd closed behind the loop and its number reused in the
		// same callback; the new file is watched at once and written to
		// twice, before and well after the report: the new watcher gets
		// both writes, the old one is reported once (alone) and never runs
		// after its report.
		{"FDReusedInOneCallbackKeepsTheNewWatcher", fdReusedInOneCallback},
		// Closed and reused twice in one tick: three files under one
		// number, told apart; only the last one's watcher stays.
		{"FDReusedTwiceInOneTickIsToldApart", fdReusedTwice},
		// Two watchers of one file, one cancelled: the other goes on.
		{"TwoWatchersOfOneFileOneCancelled", fdTwoWatchersOneCancelled},
		// A watcher of an fd that is not open: an FDError naming the fd and
		// the watcher, wrapping the errno.
		{"WatcherOfFdNotOpenIsReported", fdWatchNotOpen},
		// CloseFD cancels the fd's watchers (active, or enabled in this
		// tick), deregisters and closes it: nothing is reported and Run
		// returns; the number is free.
		{"CloseFDCancelsWatchersAndCloses", fdCloseFD},
		// CloseFD of a closed fd: the OS error naming the fd; of -1: an
		// error matching fs.ErrInvalid.
		{"CloseFDOfClosedFdFails", fdCloseFDClosed},
		// Watched fds closed behind the loop and their numbers reused at
		// once, over and over: every old watcher is reported, every new one
		// works, and the process's open fds stay flat.
		{"FDReuseChurnKeepsOpenFdsFlat", fdReuseChurn},
	}
}

// fdErrors collects the FDErrors the loop reports to its error handler;
// anything else fails the case.
func fdErrors(t *testing.T, l *core.Loop) *[]*core.FDError {
	var got []*core.FDError
	l.SetErrorHandler(func(err error) {
		var fe *core.FDError
		if !errors.As(err, &fe) {
			t.Errorf("error handler: %v, want an FDError", err)
			return
		}
		got = append(got, fe)
	})
	return &got
}

// fdReader returns a watcher that reads fd into *into and cancels itself
// once it holds want.
func fdReader(t *testing.T, l *core.Loop, into *string, want string) func(core.CallbackID, int) {
	return func(id core.CallbackID, fd int) {
		var buf [64]byte
		n, err := rvRead(fd, buf[:])
		if err != nil && !rvWouldBlock(err) {
			t.Errorf("read fd %d: %v", fd, err)
			l.Cancel(id)
			return
		}
		*into += string(buf[:max(n, 0)])
		if *into == want {
			l.Cancel(id)
		}
	}
}

func fdBackstop(t *testing.T, l *core.Loop, what string) {
	l.Unreference(l.Delay(10*time.Second, func(core.CallbackID) {
		t.Errorf("backstop: %s after 10 s", what)
		for _, id := range l.Identifiers() {
			l.Cancel(id)
		}
	}))
}

func fdReusedInOneCallback(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	t.Cleanup(func() { rvClose(b) })
	require.NoError(t, rvWrite(b, []byte("old"))) // the old file is ready: its watcher would run
	reports := fdErrors(t, l)
	oldRuns, oldRunsAfterReport := 0, 0
	old := l.OnReadable(a, func(core.CallbackID, int) {
		oldRuns++
		if len(*reports) > 0 {
			oldRunsAfterReport++
		}
	})
	var peer int
	var got string
	var fresh core.CallbackID
	l.Defer(func(core.CallbackID) {
		var err error
		// Behind the loop's back (t.Errorf: this runs in a fiber).
		if peer, err = faultCloseAndReuse(a); err != nil {
			t.Errorf("reuse fd %d: %v", a, err)
			l.Cancel(old)
			return
		}
		t.Cleanup(func() { rvClose(a); rvClose(peer) })
		fresh = l.OnReadable(a, fdReader(t, l, &got, "12"))
		if err := rvWrite(peer, []byte("1")); err != nil {
			t.Error(err)
		}
		// Well after the report: the loop has noticed by then.
		l.Delay(50*time.Millisecond, func(core.CallbackID) {
			if len(*reports) == 0 {
				t.Errorf("no report 50 ms after fd %d was closed and reused", a)
			}
			if err := rvWrite(peer, []byte("2")); err != nil {
				t.Error(err)
			}
		})
	})
	fdBackstop(t, l, "the new watcher did not read both writes")
	require.NoError(t, l.Run())
	assert.Equal(t, "12", got, "what the new file's watcher read")
	require.Len(t, *reports, 1, "reports")
	fe := (*reports)[0]
	assert.Equal(t, a, fe.FD)
	assert.Equal(t, []core.CallbackID{old}, fe.IDs, "the report names the old watcher only (new one: %v)", fresh)
	assert.ErrorIs(t, fe, core.ErrFDClosed)
	assert.Zero(t, oldRunsAfterReport, "the old watcher ran after its report")
	on, err := l.IsEnabled(old)
	require.NoError(t, err)
	assert.False(t, on, "the old watcher is still enabled")
	l.Cancel(old)
}

func fdReusedTwice(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	t.Cleanup(func() { rvClose(b) })
	reports := fdErrors(t, l)
	runs := map[core.CallbackID]int{}
	count := func(id core.CallbackID, fd int) { runs[id]++ }
	w1 := l.OnReadable(a, count)
	var w2, w3 core.CallbackID
	var peer int
	var got string
	l.Defer(func(core.CallbackID) {
		p2, err := faultCloseAndReuse(a)
		if err != nil {
			t.Error(err)
			l.Cancel(w1)
			return
		}
		defer rvClose(p2)
		rvWrite(p2, []byte("x")) // the middle file is ready: its watcher would run
		w2 = l.OnReadable(a, count)
		if peer, err = faultCloseAndReuse(a); err != nil {
			t.Error(err)
			l.Cancel(w1)
			l.Cancel(w2)
			return
		}
		t.Cleanup(func() { rvClose(a); rvClose(peer) })
		w3 = l.OnReadable(a, fdReader(t, l, &got, "3"))
		rvWrite(peer, []byte("3"))
	})
	fdBackstop(t, l, "the last file's watcher did not read")
	require.NoError(t, l.Run())
	assert.Equal(t, "3", got)
	var named []core.CallbackID
	for _, fe := range *reports {
		assert.Equal(t, a, fe.FD)
		named = append(named, fe.IDs...)
	}
	slices.Sort(named)
	assert.Equal(t, []core.CallbackID{w1, w2}, named, "watchers reported (the last file's: %v)", w3)
	assert.Zero(t, runs[w2], "the middle file's watcher ran")
	l.Cancel(w1)
	l.Cancel(w2)
}

func fdTwoWatchersOneCancelled(t *testing.T, l *core.Loop) {
	a, b := rvSocketPair(t)
	var got string
	w1 := l.OnReadable(a, func(core.CallbackID, int) { t.Error("the cancelled watcher ran") })
	l.OnReadable(a, fdReader(t, l, &got, "x"))
	l.Defer(func(core.CallbackID) {
		l.Cancel(w1)
		rvWrite(b, []byte("x"))
	})
	fdBackstop(t, l, "the remaining watcher did not read")
	require.NoError(t, l.Run())
	assert.Equal(t, "x", got)
}

func fdWatchNotOpen(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	rvClose(b)
	rvClose(a)
	id := l.OnReadable(a, func(core.CallbackID, int) { t.Error("the watcher of a closed fd ran") })
	err = l.Run()
	var fe *core.FDError
	require.ErrorAs(t, err, &fe, "Run: %v", err)
	assert.Equal(t, a, fe.FD)
	assert.Equal(t, []core.CallbackID{id}, fe.IDs)
	assert.ErrorIs(t, err, rvErrNotOpen)
	assert.Contains(t, err.Error(), fmt.Sprintf("fd %d", a))
	assert.NotContains(t, err.Error(), "panic", "an fd error is not a panic")
	on, _ := l.IsEnabled(id)
	assert.False(t, on)
	l.Cancel(id)
}

func fdCloseFD(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	t.Cleanup(func() { rvClose(b) })
	rvWrite(b, []byte("x"))
	reports := fdErrors(t, l)
	ran := 0
	w1 := l.OnReadable(a, func(core.CallbackID, int) { ran++ })
	w2 := l.OnWritable(a, func(core.CallbackID, int) { ran++ })
	var w3 core.CallbackID
	l.Defer(func(core.CallbackID) {
		// w3 is enabled in this tick and not active yet: cancelled too.
		w3 = l.OnReadable(a, func(core.CallbackID, int) { t.Error("a watcher enabled before CloseFD ran") })
		if err := l.CloseFD(a); err != nil {
			t.Errorf("CloseFD(%d): %v", a, err)
		}
	})
	require.NoError(t, l.Run(), "Run returns: no watcher is left")
	assert.Empty(t, *reports, "CloseFD is not a close behind the loop's back")
	for _, id := range []core.CallbackID{w1, w2, w3} {
		_, err := l.IsEnabled(id)
		assert.ErrorIs(t, err, core.ErrInvalidCallback, "watcher %v after CloseFD", id)
	}
	assert.False(t, rvIsOpen(a), "fd %d is still open after CloseFD", a)
}

func fdCloseFDClosed(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	rvClose(b)
	require.NoError(t, l.CloseFD(a))
	err = l.CloseFD(a)
	assert.ErrorIs(t, err, rvErrNotOpen)
	if err != nil {
		assert.Contains(t, err.Error(), fmt.Sprintf("CloseFD(%d)", a))
	}
	assert.ErrorIs(t, l.CloseFD(-1), fs.ErrInvalid)
}

func fdReuseChurn(t *testing.T, l *core.Loop) {
	const rounds = 200
	before, err := soakOpenFDs()
	require.NoError(t, err)
	reports := fdErrors(t, l)
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	var old core.CallbackID = l.OnReadable(a, func(core.CallbackID, int) {})
	round, read := 0, 0
	var step func(core.CallbackID)
	step = func(core.CallbackID) {
		if round == rounds {
			l.Cancel(old)
			rvClose(a)
			rvClose(b)
			return
		}
		round++
		// Behind the loop's back: close, reuse at once, watch the new file.
		rvClose(b)
		peer, err := faultCloseAndReuse(a)
		if err != nil {
			t.Error(err)
			l.Cancel(old)
			return
		}
		b = peer
		done := false
		old = l.OnReadable(a, func(id core.CallbackID, fd int) {
			var buf [8]byte
			if n, _ := rvRead(fd, buf[:]); n == 1 && !done {
				done = true
				read++
				l.Defer(step)
			}
		})
		rvWrite(b, []byte("x"))
	}
	l.Defer(step)
	fdBackstop(t, l, "the churn did not finish")
	require.NoError(t, l.Run())
	assert.Equal(t, rounds, read, "new watchers that read their file")
	assert.Len(t, *reports, rounds, "reports (one per closed file)")
	after, err := soakOpenFDs()
	require.NoError(t, err)
	assert.LessOrEqual(t, after, before+2, "open fds before and after %d reuses", rounds)
}
