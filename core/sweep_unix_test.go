//go:build unix

package core_test

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A watched fd closed behind the loop's back, which its driver never
// reports (a fake one here), is found by the core's own sweep of the
// watched fds' identities: the error handler gets an FDError naming the fd
// and its watcher, which is disabled, with fstat's EBADF as the cause.
// conformance's fd cases check the same on every real driver; this one
// holds without them.
func TestSweepFindsAWatchedFDClosedBehindTheLoop(t *testing.T) {
	l := core.New(newScriptFD())
	defer l.Close()
	var fds [2]int
	require.NoError(t, syscall.Pipe(fds[:]))
	defer syscall.Close(fds[1])
	var got []*core.FDError
	l.SetErrorHandler(func(err error) {
		var fe *core.FDError
		if !errors.As(err, &fe) {
			t.Errorf("error handler: %v, want an FDError", err)
			return
		}
		got = append(got, fe)
	})
	id := l.OnReadable(fds[0], func(core.CallbackID, int) { t.Error("the watcher of an empty pipe ran") })
	l.Defer(func(core.CallbackID) { syscall.Close(fds[0]) }) // behind the loop's back
	l.Unreference(l.Delay(10*time.Second, func(core.CallbackID) {
		t.Error("backstop: the closed fd was not found after 10 s")
		l.Cancel(id)
	}))
	require.NoError(t, l.Run())
	require.Len(t, got, 1)
	assert.Equal(t, fds[0], got[0].FD)
	assert.ErrorIs(t, got[0].Err, core.ErrFDClosed)
	assert.ErrorIs(t, got[0].Err, syscall.EBADF)
	assert.Equal(t, []core.CallbackID{id}, got[0].IDs)
}

// The sweep backs off while the loop is idle: after a pass with no events
// and no registration change since the one before, the next comes twice
// as late, which shows in the timeout of the driver's blocking Wait (capped
// at the next sweep). An empty batch of events is no activity.
func TestSweepBacksOffWhileIdle(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv)
	defer l.Close()
	var fds [2]int
	require.NoError(t, syscall.Pipe(fds[:]))
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	var timeouts []time.Duration
	drv.onWait = func(timeout time.Duration, _ bool, _ []int) {
		if timeout > 0 {
			timeouts = append(timeouts, timeout)
		}
		// Done once a wait is longer than the shortest interval, or
		// after enough waits for four passes at the shortest.
		if timeout > 10*time.Millisecond || len(timeouts) >= 8 {
			l.Stop()
		}
	}
	id := l.OnReadable(fds[0], func(core.CallbackID, int) { t.Error("the watcher of an empty pipe ran") })
	require.NoError(t, l.Run())
	l.Cancel(id)
	require.NotEmpty(t, timeouts)
	if last := timeouts[len(timeouts)-1]; last <= 10*time.Millisecond {
		t.Fatalf("blocking waits of an idle loop watching one fd: %v; want one longer than the sweep's shortest interval (10 ms)", timeouts)
	}
}
