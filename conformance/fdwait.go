//go:build unix || windows

package conformance

import (
	"net"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/require"
)

// fdWaitCases pin core.FD's wait on the driver under test: readiness that
// nobody waits for, and what the next wait makes of it. A wait that hangs
// is what breaking these rules looks like; each case bounds it with a
// timer that fails it.
func fdWaitCases() []Case {
	return []Case{
		// Readiness reported while nobody waits takes the direction's
		// interest away (the driver would report it every tick); the next
		// Wait puts it back and returns for what is still pending.
		{"FDWaitRestoresInterestAnUnwaitedReadinessTookAway", fdWaitRestoresInterest},
		// A Wait whose readiness was read away waits for the next one: it
		// does not return before the peer writes again.
		{"FDWaitReturnsOnlyOnReadiness", fdWaitOnlyOnReadiness},
		// An armed FDWatch keeps Run going if Referenced, and not if not.
		{"FDWatchReferencedKeepsRunGoing", fdWatchReferenced},
	}
}

// fdWaitPair is a socket pair whose a is waited on through an FD. The FD
// is never closed: the case's cleanup closes both sockets after the loop.
func fdWaitPair(t *testing.T, l *core.Loop) (p *core.FD, a, b int) {
	a, b = rvSocketPair(t)
	p = new(core.FD)
	require.NoError(t, p.Init(l, a, net.ErrClosed))
	return p, a, b
}

// fdHangGuard fails the case and stops the loop if it is still running
// after d: a wait that should have ended hangs.
func fdHangGuard(t *testing.T, l *core.Loop, d time.Duration, what string) core.CallbackID {
	return l.Delay(d, func(core.CallbackID) {
		t.Errorf("%s: still waiting after %v", what, d)
		l.Stop()
	})
}

// fdWaitRead is one Wait(Read) of a fiber, under a reference.
func fdWaitRead(t *testing.T, p *core.FD) error {
	if !p.Acquire() {
		t.Fatal("Acquire: the FD is closing")
	}
	defer p.Release()
	return p.Wait(core.Read)
}

func fdWaitRestoresInterest(t *testing.T, l *core.Loop) {
	p, a, b := fdWaitPair(t, l)
	buf := make([]byte, 8)
	steps := 0
	l.Defer(func(core.CallbackID) {
		// A first wait registers the fd and carries Read.
		l.Delay(10*time.Millisecond, func(core.CallbackID) { require.NoError(t, rvWrite(b, []byte("1"))) })
		require.NoError(t, fdWaitRead(t, p))
		n, err := rvRead(a, buf)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		steps++
		// A byte while nobody waits: the tick that reports it (the loop
		// blocks in the driver meanwhile) takes the interest away.
		require.NoError(t, rvWrite(b, []byte("2")))
		l.Delay(50*time.Millisecond, func(core.CallbackID) {
			guard := fdHangGuard(t, l, 5*time.Second, "a Wait for a byte that is pending")
			require.NoError(t, fdWaitRead(t, p))
			l.Cancel(guard)
			n, err := rvRead(a, buf)
			require.NoError(t, err)
			require.Equal(t, "2", string(buf[:n]))
			steps++
		})
	})
	require.NoError(t, l.Run())
	require.Equal(t, 2, steps, "both waits ended")
}

func fdWaitOnlyOnReadiness(t *testing.T, l *core.Loop) {
	p, a, b := fdWaitPair(t, l)
	written := false
	done := false
	l.Defer(func(core.CallbackID) {
		// A first byte, waited for and read: the fd is registered.
		require.NoError(t, rvWrite(b, []byte("0")))
		require.NoError(t, fdWaitRead(t, p))
		n, err := rvRead(a, make([]byte, 1))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		l.Delay(30*time.Millisecond, func(core.CallbackID) {
			written = true
			require.NoError(t, rvWrite(b, []byte("x")))
		})
		guard := fdHangGuard(t, l, 5*time.Second, "a Wait for a byte written after 30 ms")
		// Wait may return early (try again), but a wait that keeps
		// coming back with nothing to read is woken without readiness
		// (a readiness kept after it was read away): it would spin.
		for early := 0; ; early++ {
			require.NoError(t, fdWaitRead(t, p))
			if written {
				break
			}
			if early == 3 {
				l.Cancel(guard)
				t.Errorf("Wait returned %d times before the byte was written", early+1)
				return // the socket blocks: no read of a byte not written
			}
		}
		l.Cancel(guard)
		n, err = rvRead(a, make([]byte, 1))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		done = true
	})
	require.NoError(t, l.Run())
	require.True(t, done)
}

func fdWatchReferenced(t *testing.T, l *core.Loop) {
	p, _, b := fdWaitPair(t, l)
	var x core.FDWatch
	// Unreferenced: Run returns while it is armed.
	l.Defer(func(core.CallbackID) {
		require.NoError(t, p.Watch(core.Read, &x, func() { t.Error("the watch ran with nothing to read") }))
	})
	require.NoError(t, l.Run())
	require.True(t, x.Stop(), "Stop of the armed watch")
	// Referenced: Run goes on until the byte comes and the func runs.
	ran := false
	x.Referenced = true
	l.Defer(func(core.CallbackID) {
		require.NoError(t, p.Watch(core.Read, &x, func() { ran = true }))
		l.Delay(20*time.Millisecond, func(core.CallbackID) { require.NoError(t, rvWrite(b, []byte("x"))) })
	})
	guard := fdHangGuard(t, l, 5*time.Second, "a referenced watch for a byte written after 20 ms")
	l.Unreference(guard)
	require.NoError(t, l.Run())
	require.True(t, ran, "Run returned before the referenced watch ran")
	require.False(t, x.Stop(), "Stop after the func ran")
}
