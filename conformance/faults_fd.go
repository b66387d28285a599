//go:build unix || windows

package conformance

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultFdCases are the fault cases that need fds (and, in
// faultPlatformCases, signals or descriptor limits).
func faultFdCases() []Case {
	var cs []Case
	for _, blocked := range []bool{true, false} {
		for _, reuse := range []bool{false, true} {
			name := "FaultWatchedFDClosed"
			if reuse {
				name += "AndReused"
			}
			if blocked {
				name += "WhileBlocked"
			} else {
				name += "BetweenTicks"
			}
			// An fd closed (and its number taken by a new socket) behind the
			// loop's back, by another goroutine while the loop blocks in the
			// driver or by a callback between two ticks: the loop neither
			// hangs nor spins (few ticks), disables the fd's watchers and
			// reports an *UncaughtError wrapping an *FDError that names the
			// fd and both watchers, to Run (blocked) or to the error handler
			// (between ticks), within a bounded time; a new socket on the
			// same number then works when watched afresh.
			cs = append(cs, Case{name, func(t *testing.T, l *core.Loop) { faultClosedFD(t, l, blocked, reuse) }})
		}
	}
	cs = append(cs,
		// A peer that hangs up while its socket is watched: the readable
		// callback runs once more and its read returns 0 (end of file).
		Case{"FaultPeerHangUpMidWatch", faultPeerHangUp},
	)
	cs = append(cs, faultPlatformCases()...)
	cs = append(cs, fdWaitCases()...)
	return append(cs, fdLifeCases()...)
}

// faultDetectWithin bounds how long a driver may take to notice a closed
// fd: the closed-fd sweeps back off to 1 s while idle; the rest is slack
// for a loaded machine.
const faultDetectWithin = 4 * time.Second

// errNumberTaken is what faultCloseAndReuse returns when the closed fd's
// number was taken by another object before the new socket could be made
// there.
var errNumberTaken = errors.New("the closed fd's number was taken by another object before the new socket")

// faultReuseTries bounds the attempts of a reuse case whose number was
// taken by another kind of object before the new socket (errNumberTaken):
// on Windows, a thread the runtime starts while the loop wakes from the
// close can take it. Each such attempt is still checked as a plain close.
const faultReuseTries = 3

func faultClosedFD(t *testing.T, l *core.Loop, blocked, reuse bool) {
	for try := 1; faultClosedFDOnce(t, l, blocked, reuse); try++ {
		if try == faultReuseTries {
			t.Fatalf("in %d attempts, the closed fd's number was taken by another object before the new socket every time", try)
		}
	}
}

// faultClosedFDOnce runs the case once and reports whether the number was
// taken by another object before the new socket (the reuse did not
// happen, and only the close was checked).
func faultClosedFDOnce(t *testing.T, l *core.Loop, blocked, reuse bool) (taken bool) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	// Closed by the case: b, and whatever sits at number a when it ends
	// (the original socket if the case failed before closing it).
	peer, aOpen := -1, true
	t.Cleanup(func() {
		_ = rvClose(b)
		if aOpen {
			_ = rvClose(a)
		}
		if peer >= 0 {
			_ = rvClose(peer)
		}
	})
	calls := 0
	watch := func(core.CallbackID, int) { calls++ }
	id1 := l.OnReadable(a, watch)
	id2 := l.OnReadable(a, watch)
	var closedAt time.Time
	var reuseErr error
	closeIt := func() {
		closedAt = time.Now()
		if reuse {
			peer, reuseErr = faultCloseAndReuse(a)
			aOpen = reuseErr == nil
			return
		}
		if err := rvClose(a); err != nil {
			reuseErr = fmt.Errorf("close: %w", err)
			return
		}
		aOpen = false
	}
	var got error
	backstop := l.Delay(faultDetectWithin+2*time.Second, func(core.CallbackID) {
		t.Errorf("no fd error %v after the fd was closed", faultDetectWithin+2*time.Second)
		l.Cancel(id1)
		l.Cancel(id2)
	})
	ticks := l.Stats().Ticks
	if blocked {
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Nothing is ready: by now the loop blocks in the driver.
			time.Sleep(50 * time.Millisecond)
			closeIt()
		}()
		got = l.Run()
		<-done
	} else {
		l.SetErrorHandler(func(err error) {
			got = err
			l.Cancel(backstop)
		})
		l.Delay(20*time.Millisecond, func(core.CallbackID) { closeIt() })
		require.NoError(t, l.Run())
		l.SetErrorHandler(nil)
	}
	took := time.Since(closedAt)
	ticks = l.Stats().Ticks - ticks
	l.Cancel(backstop)
	if taken = errors.Is(reuseErr, errNumberTaken); taken {
		t.Logf("attempt without reuse: %v", reuseErr)
	} else {
		require.NoError(t, reuseErr)
	}

	var ue *core.UncaughtError
	require.ErrorAs(t, got, &ue, "what the loop reported: %v", got)
	var fe *core.FDError
	require.ErrorAs(t, got, &fe, "what the loop reported: %v", got)
	assert.Equal(t, a, fe.FD, "the fd named")
	ids := slices.Clone(fe.IDs)
	slices.Sort(ids)
	assert.Equal(t, []core.CallbackID{id1, id2}, ids, "the watchers named")
	assert.ErrorIs(t, got, core.ErrFDClosed)
	for _, want := range []string{fmt.Sprintf("fd %d", a), id1.String(), id2.String()} {
		assert.Contains(t, got.Error(), want)
	}
	assert.Less(t, took, faultDetectWithin, "time to notice the closed fd")
	assert.Less(t, ticks, uint64(10_000), "ticks while the closed fd was watched: the loop spins")
	assert.Zero(t, calls, "watchers called for an fd nothing made ready")
	for _, id := range []core.CallbackID{id1, id2} {
		on, err := l.IsEnabled(id)
		assert.NoError(t, err)
		assert.False(t, on, "watcher %v still enabled", id)
		l.Cancel(id)
	}

	if !reuse || taken {
		// The loop goes on: a timer still runs.
		ran := false
		l.Delay(time.Millisecond, func(core.CallbackID) { ran = true })
		require.NoError(t, l.Run())
		assert.True(t, ran)
		return taken
	}
	// The new socket on the old number, watched afresh, works.
	var read string
	l.OnReadable(a, func(id core.CallbackID, fd int) {
		var buf [16]byte
		n, err := rvRead(fd, buf[:])
		if err == nil {
			read += string(buf[:n])
		}
		l.Cancel(id)
	})
	l.Unreference(l.Delay(5*time.Second, func(core.CallbackID) {
		t.Error("the new socket on the reused number never became readable")
		for _, id := range l.Identifiers() {
			l.Cancel(id)
		}
	}))
	require.NoError(t, rvWrite(peer, []byte("new")))
	require.NoError(t, l.Run())
	assert.Equal(t, "new", read)
	return false
}

func faultPeerHangUp(t *testing.T, l *core.Loop) {
	a, b, err := rvRawSocketPair()
	require.NoError(t, err)
	bOpen := true
	t.Cleanup(func() {
		_ = rvClose(a)
		if bOpen {
			_ = rvClose(b)
		}
	})
	var reads []int
	id := l.OnReadable(a, func(id core.CallbackID, fd int) {
		var buf [16]byte
		n, err := rvRead(fd, buf[:])
		if err != nil {
			t.Errorf("read: %v", err)
			n = -1
		}
		reads = append(reads, n)
		if n <= 0 {
			l.Cancel(id)
		}
	})
	l.Delay(10*time.Millisecond, func(core.CallbackID) { assert.NoError(t, rvWrite(b, []byte("hi"))) })
	// Later, so that the loop has read "hi" and blocks again, watching.
	l.Delay(40*time.Millisecond, func(core.CallbackID) {
		assert.NoError(t, rvClose(b))
		bOpen = false
	})
	l.Unreference(l.Delay(5*time.Second, func(core.CallbackID) {
		t.Errorf("no end of file 5 s after the hang-up; reads so far %v", reads)
		l.Cancel(id)
	}))
	require.NoError(t, l.Run())
	assert.Equal(t, []int{2, 0}, reads, "bytes per read: the data, then end of file")
}

// faultPingPong returns a function that makes a loop read n bytes written
// one a millisecond to a socketpair, calling done with the count read when
// it is through; the pair is closed when the case ends.
func faultPingPong(t *testing.T) func(l *core.Loop, n int, done func(got int)) {
	a, b := rvSocketPair(t)
	return func(l *core.Loop, n int, done func(int)) {
		got, sent := 0, 0
		l.OnReadable(a, func(id core.CallbackID, fd int) {
			var buf [64]byte
			m, err := rvRead(fd, buf[:])
			if m > 0 {
				got += m
			}
			if err != nil || m == 0 || got >= n {
				l.Cancel(id)
				done(got)
			}
		})
		l.Repeat(time.Millisecond, func(id core.CallbackID) {
			err := rvWrite(b, []byte{1})
			if sent++; err != nil || sent == n {
				l.Cancel(id)
			}
		})
	}
}
