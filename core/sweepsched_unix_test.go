//go:build unix

package core_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watchedPipe makes a pipe whose read end l watches (a watcher that must
// not run: the pipe stays empty), and closes both ends at the test's end.
func watchedPipe(t *testing.T, l *core.Loop) (r int, id core.CallbackID) {
	t.Helper()
	var fds [2]int
	require.NoError(t, syscall.Pipe(fds[:]))
	t.Cleanup(func() {
		syscall.Close(fds[0]) // may be closed already: EBADF is fine
		syscall.Close(fds[1])
	})
	id = l.OnReadable(fds[0], func(core.CallbackID, int) { t.Error("the watcher of an empty pipe ran") })
	return fds[0], id
}

// An idle loop watching fds blocks in the driver, each wait capped at the
// next sweep, which is never more than SweepMax away; it polls only in its
// first tick, and a sweep that finds nothing makes no poll. The loop is
// made an hour ago, so that a clock reading taken for a duration shows.
func TestSweepAnIdleLoopBlocksUntilTheNextSweep(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv, core.MadeAgo(time.Hour))
	defer l.Close()
	var blocking []time.Duration
	polls := 0
	drv.onWait = func(timeout time.Duration, _ bool, _ []int) {
		if timeout == 0 {
			polls++
		} else {
			blocking = append(blocking, timeout)
		}
		// Stopped in time if a wait would block for long, so that a
		// wrong cap fails the test instead of hanging it.
		if len(blocking) == 5 || polls > 100 || timeout > time.Minute {
			l.Stop()
		}
	}
	_, id := watchedPipe(t, l)
	require.NoError(t, l.Run())
	l.Cancel(id)
	assert.LessOrEqual(t, polls, 1, "polls of an idle loop; blocking waits %v", blocking)
	for _, d := range blocking {
		// A pass may take long on a loaded machine (the interval is then
		// 100 times its time); an hour off is a clock reading taken for
		// a duration.
		if d < 0 || d > time.Minute {
			t.Fatalf("blocking waits of an idle loop watching one fd: %v; want each within %v (the next sweep)", blocking, core.SweepMax)
		}
	}
}

// The first sweep comes sweepMin after the loop first waits watching fds,
// not at once: an fd closed behind the loop's back before then is found
// after a blocking wait.
func TestSweepFirstPassAfterABlockingWait(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv)
	defer l.Close()
	blocked := 0
	drv.onWait = func(timeout time.Duration, _ bool, _ []int) {
		if timeout != 0 {
			blocked++
		}
	}
	r, id := watchedPipe(t, l)
	l.Defer(func(core.CallbackID) { syscall.Close(r) })
	found := -1
	l.SetErrorHandler(func(err error) {
		assert.ErrorIs(t, err, core.ErrFDClosed)
		found = blocked
	})
	l.Unreference(l.Delay(10*time.Second, func(core.CallbackID) {
		t.Error("backstop: the closed fd was not found after 10 s")
		l.Cancel(id)
	}))
	require.NoError(t, l.Run())
	assert.Positive(t, found, "blocking waits before the sweep found the closed fd")
}

// One pass reports every watched fd closed behind the loop's back: two
// closed at once are reported together, with no wait in between.
func TestSweepReportsEveryClosedFDOfAPass(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv)
	defer l.Close()
	waits := 0
	drv.onWait = func(time.Duration, bool, []int) { waits++ }
	r1, id1 := watchedPipe(t, l)
	r2, id2 := watchedPipe(t, l)
	l.Defer(func(core.CallbackID) {
		syscall.Close(r1)
		syscall.Close(r2)
	})
	var at []int
	var fds []int
	l.SetErrorHandler(func(err error) {
		var fe *core.FDError
		if !assert.ErrorAs(t, err, &fe) {
			return
		}
		fds = append(fds, fe.FD)
		at = append(at, waits)
	})
	l.Unreference(l.Delay(10*time.Second, func(core.CallbackID) {
		t.Error("backstop: the closed fds were not found after 10 s")
		l.Cancel(id1)
		l.Cancel(id2)
	}))
	require.NoError(t, l.Run())
	assert.ElementsMatch(t, []int{r1, r2}, fds)
	require.Len(t, at, 2)
	assert.Equal(t, at[0], at[1], "waits before each report")
}

// A loop that polls (busy with callbacks) reads the clock for the sweep on
// every SweepStride-th poll only, and sweeps then if one is due: an fd
// closed behind its back is found at such a poll.
func TestSweepWhilePollingEveryStridethPoll(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv)
	defer l.Close()
	polls := 0
	drv.onWait = func(timeout time.Duration, _ bool, _ []int) {
		if timeout != 0 {
			t.Errorf("a busy loop waited %v", timeout)
		}
		polls++
	}
	r, id := watchedPipe(t, l)
	found := -1
	l.SetErrorHandler(func(err error) {
		assert.ErrorIs(t, err, core.ErrFDClosed)
		found = polls
	})
	var busy func(core.CallbackID)
	busy = func(core.CallbackID) {
		switch {
		case found >= 0:
		case polls >= 1<<22:
			// Far more polls than a loop makes in sweepMin (10 ms).
			t.Errorf("backstop: the closed fd was not found in %d polls", polls)
			l.Cancel(id)
		default:
			l.Defer(busy)
		}
	}
	l.Defer(func(core.CallbackID) { syscall.Close(r) })
	l.Defer(busy)
	require.NoError(t, l.Run())
	require.Positive(t, found)
	assert.Zero(t, found%core.SweepStride, "found at poll %d; want a multiple of %d", found, core.SweepStride)
}

// preWaitFD is a scriptFD that runs pre before each Wait computes its
// events, so that pre can make a watched fd ready for that very Wait.
type preWaitFD struct {
	*scriptFD
	pre func(timeout time.Duration)
}

func (d *preWaitFD) Wait(events []core.Event, timeout time.Duration) (int, error) {
	d.pre(timeout)
	return d.scriptFD.Wait(events, timeout)
}

// A pass checks SweepChunk fds per Wait and goes on at the next, which does
// not block: a loop watching SweepChunk+1 fds polls between its two chunks.
// An fd registered below the pass's cursor between them is the next pass's
// to check: this one ends at the end of the fd table.
func TestSweepChecksAChunkPerWait(t *testing.T) {
	drv := &preWaitFD{scriptFD: newScriptFD()}
	l := core.New(drv)
	var p [2]int
	require.NoError(t, syscall.Pipe(p[:]))
	fds := []int{p[0], p[1]}
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	defer l.Close()
	dup := func() int {
		fd, err := syscall.Dup(p[0])
		require.NoError(t, err)
		fds = append(fds, fd)
		return fd
	}
	later := dup() // numbered below the watched ones
	var first int
	for i := 0; i <= core.SweepChunk; i++ {
		fd := dup()
		if i == 0 {
			first = fd
		}
		l.OnReadable(fd, func(core.CallbackID, int) {
			delete(drv.ready, fd) // seen; never again
			l.OnReadable(later, func(core.CallbackID, int) { t.Error("the watcher of an empty pipe ran") })
		})
	}
	l.SetErrorHandler(func(err error) { t.Errorf("error handler: %v", err) })
	blocked, between, polls := 0, false, 0
	drv.pre = func(timeout time.Duration) {
		switch {
		case timeout != 0:
			if blocked++; blocked == 3 {
				l.Stop()
			}
		case blocked > 0 && !between:
			// The poll after the first chunk of the first pass.
			between = true
			drv.ready[first] = core.Read
		case between:
			// A pass that never ends polls for ever.
			if polls++; polls == 100 {
				t.Errorf("%d polls after the first chunk and no blocking wait: the pass does not end", polls)
				l.Stop()
			}
		}
	}
	require.NoError(t, l.Run())
	assert.True(t, between, "the loop polled between the chunks of a pass over %d fds", core.SweepChunk+1)
	if _, ok := drv.ready[first]; ok {
		t.Errorf("the watcher made ready between two chunks did not run")
	}
}
