package conformance

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/require"
)

// The blocked-call report (core.WithBlockedReport) on every driver: its
// sampler sleeps while the loop waits in the driver, and the loop wakes it
// when the wait returns, so that code that readiness runs (a microtask:
// no callback begins) and that blocks the loop's goroutine is still
// reported, once per call site.

// blockedHang bounds a wait for a report: a hang guard.
const blockedHang = 20 * time.Second

// blockedUntil is the call site: a receive that the report (or guard)
// ends.
func blockedUntil(ch <-chan struct{}, guard time.Duration) {
	select {
	case <-ch:
	case <-time.After(guard):
	}
}

func blockedAfterWaitInDriver(t *testing.T, newLoop func(...core.Option) *core.Loop) {
	var mu sync.Mutex
	var got []core.BlockedCall
	reported := make(chan struct{})
	l := newLoop(core.WithBlockedReport(func(c core.BlockedCall) {
		mu.Lock()
		defer mu.Unlock()
		if got = append(got, c); len(got) == 1 {
			close(reported)
		}
	}))
	a, b := rvSocketPair(t)
	p := new(core.FD)
	require.NoError(t, p.Init(l, a, net.ErrClosed))
	// A byte comes after the loop has waited in the driver long enough
	// for the sampler to sleep (eight of its periods, and coarse timers).
	write := func() {
		time.AfterFunc(300*time.Millisecond, func() { _ = rvWrite(b, []byte("x")) })
	}
	x := core.FDWatch{Referenced: true}
	var buf [1]byte
	fires := 0
	var fn func()
	fn = func() {
		_, _ = rvRead(a, buf[:])
		fires++
		if fires == 1 {
			blockedUntil(reported, blockedHang)
		} else {
			// The same site again, 100 ms: not reported again.
			blockedUntil(nil, 100*time.Millisecond)
		}
		if fires < 2 {
			require.NoError(t, p.Watch(core.Read, &x, fn))
			write()
		}
	}
	l.Defer(func(core.CallbackID) {
		require.NoError(t, p.Watch(core.Read, &x, fn))
		write()
	})
	require.NoError(t, l.Run())
	require.NoError(t, l.Close()) // the sampler has ended
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1, "one report for one call site, blocked twice after a wait in the driver")
	c := got[0]
	if !strings.HasSuffix(c.Site, "conformance.blockedUntil") || c.Call != "runtime.selectgo" || !strings.Contains(c.Fix, "core.Await") {
		t.Errorf("the report names %s in %s, fix %q; want conformance.blockedUntil in runtime.selectgo, fix core.Await", c.Site, c.Call, c.Fix)
	}
}
