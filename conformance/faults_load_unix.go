//go:build unix

package conformance

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// faultPlatformCases are the fault cases only Unix can run: they raise
// signals at the process and size the load by RLIMIT_NOFILE.
func faultPlatformCases() []Case {
	return []Case{
		// Signals sent in a tight loop while the loop blocks in Wait (each
		// one may interrupt the wait with EINTR): a 100 ms timer fires no
		// earlier than 100 ms and Run returns no error.
		{"FaultEINTRStormWhileBlocked", faultEINTRStorm},
		// 10 000 fds watched at once (5 000 socketpairs, both ends), one of
		// them made readable: its callback runs, and no other. Where the
		// hard RLIMIT_NOFILE cannot hold 10 000 fds and the descriptors the
		// driver opens for them, as many as fit, logged; fewer than 5 000
		// fail.
		{"FaultTenThousandWatchedFDs", faultManyFDs},
	}
}

func faultEINTRStorm(t *testing.T, l *core.Loop) {
	// SIGURG is the runtime's own preemption signal, ignored by everything
	// else; SIGUSR1 is watched by the loop (each one wakes it) and by a
	// guard, so that none is fatal. The guard outlives the storm by a
	// moment: a signal still in flight when it stopped would kill the test.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGUSR1)
	defer func() {
		time.Sleep(50 * time.Millisecond)
		signal.Stop(guard)
	}()
	caught := 0
	sigID, err := l.OnSignal(syscall.SIGUSR1, func(core.CallbackID, os.Signal) { caught++ })
	require.NoError(t, err)
	l.Unreference(sigID)

	stop := make(chan struct{})
	stormDone := make(chan struct{})
	var sent atomic.Int64
	go func() {
		defer close(stormDone)
		pid := os.Getpid()
		deadline := time.Now().Add(5 * time.Second)
		for i := 0; i < 1_000_000 && time.Now().Before(deadline); i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Mostly SIGURG, which interrupts the wait without waking the
			// loop; every 16th a SIGUSR1, which wakes it through os/signal.
			sig := syscall.SIGURG
			if i%16 == 15 {
				sig = syscall.SIGUSR1
			}
			if syscall.Kill(pid, sig) == nil {
				sent.Add(1)
			}
		}
	}()
	const d = 100 * time.Millisecond
	var after time.Duration
	start := time.Now()
	// The timer's firing ends the wait under test; the storm then goes on
	// (a millisecond timer at a time) until it has sent 100 signals and the
	// loop has seen a SIGUSR1, which a loaded machine may not have managed
	// in 100 ms, or until it ends by itself (its 5 s deadline: a hang
	// guard).
	var fired func(core.CallbackID)
	fired = func(core.CallbackID) {
		if after == 0 {
			after = time.Since(start)
		}
		select {
		case <-stormDone:
		default:
			if sent.Load() < 100 || caught == 0 {
				l.Delay(time.Millisecond, fired)
				return
			}
		}
		close(stop)
	}
	l.Delay(d, fired)
	runErr := l.Run()
	<-stormDone
	l.Cancel(sigID)
	require.NoError(t, runErr)
	require.NotZero(t, after, "the timer never fired")
	assert.GreaterOrEqual(t, after, d, "the timer fired early")
	assert.Less(t, after, d+3*time.Second, "the timer fired late")
	assert.GreaterOrEqual(t, sent.Load(), int64(100), "signals sent during the wait")
	assert.NotZero(t, caught, "SIGUSR1 deliveries seen by the loop")
}

func faultManyFDs(t *testing.T, l *core.Loop) {
	pairs, perFd, need := faultManyFDsFit(t, l.Driver())
	// The case's own fds, the driver's and those already open, with some
	// room; more if the hard limit allows.
	faultNeedFds(t, need, need+1024)
	ends := make([][2]int, 0, pairs)
	t.Cleanup(func() {
		for _, p := range ends {
			_ = rvClose(p[0])
			_ = rvClose(p[1])
		}
	})
	for range pairs {
		a, b, err := rvRawSocketPair()
		require.NoError(t, err, "socketpair %d of %d", len(ends)+1, pairs)
		ends = append(ends, [2]int{a, b})
	}
	target := ends[rand.New(rand.NewPCG(10_000, 1)).IntN(pairs)]
	ids := make([]core.CallbackID, 0, 2*pairs)
	cancelAll := func() {
		for _, id := range ids {
			l.Cancel(id)
		}
	}
	var got []int
	for _, p := range ends {
		for _, fd := range p {
			ids = append(ids, l.OnReadable(fd, func(_ core.CallbackID, fd int) {
				got = append(got, fd)
				cancelAll()
			}))
		}
	}
	// Made readable once every watcher is registered and the loop waits.
	l.Delay(10*time.Millisecond, func(core.CallbackID) {
		assert.NoError(t, rvWrite(target[1], []byte("x")))
	})
	l.Unreference(l.Delay(10*time.Second, func(core.CallbackID) {
		t.Error("the readable fd's callback did not run within 10 s")
		cancelAll()
	}))
	err := l.Run()
	if errors.Is(err, unix.EMFILE) {
		var lim unix.Rlimit
		_ = unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
		t.Fatalf("the driver ran out of descriptors watching %d fds (%d descriptors each, counting the driver's) under RLIMIT_NOFILE %d (hard %d): %v",
			2*pairs, perFd, lim.Cur, lim.Max, err)
	}
	require.NoError(t, err)
	assert.Equal(t, []int{target[0]}, got, "fds whose callback ran")
}

const (
	// faultManyFDsWant is how many fds FaultTenThousandWatchedFDs aims to
	// watch, and faultManyFDsMin the fewest that still make it a load test.
	faultManyFDsWant = 10_000
	faultManyFDsMin  = 5_000
	// faultFdMargin is left free under the hard limit for what the
	// runtime, the loop and the test framework may open meanwhile.
	faultFdMargin = 64
)

// faultManyFDsFit returns how many socketpairs FaultTenThousandWatchedFDs
// can watch (both ends) and how many descriptors each watched fd costs,
// its own and the driver's, and how many descriptors the process then
// needs in all. A driver may hold descriptors of its own per
// watched fd (netpoll watches a dup of each), and no test can raise a hard
// RLIMIT_NOFILE without privilege: where 10 000 watched fds do not fit
// under it, the case watches as many as do, says so, and fails only below
// faultManyFDsMin, where it would no longer test a load worth the name.
func faultManyFDsFit(t *testing.T, d core.Driver) (pairs, perFd int, need uint64) {
	t.Helper()
	extra, err := faultDriverFdsPerWatch(d)
	if err != nil {
		t.Fatalf("measuring the driver's descriptors per watched fd: %v", err)
	}
	perFd = 1 + extra
	open, err := soakOpenFDs()
	if err != nil {
		t.Fatalf("counting open fds: %v", err)
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	// (Max is signed on FreeBSD and DragonFly, whose "unlimited" is the
	// largest int64, so the conversion keeps it large.)
	hard := uint64(lim.Max)
	need = uint64(faultManyFDsWant*perFd+open) + faultFdMargin
	if hard >= need {
		return faultManyFDsWant / 2, perFd, need
	}
	room := uint64(0)
	if hard > uint64(open)+faultFdMargin {
		room = hard - uint64(open) - faultFdMargin
	}
	watched := int(room/uint64(perFd)) &^ 1 // whole socketpairs
	if watched < faultManyFDsMin {
		t.Fatalf("only %d fds can be watched: each costs %d descriptors (%d of the driver's), %d are open, and the hard RLIMIT_NOFILE is %d; "+
			"the case needs at least %d (raise the hard limit, e.g. ulimit -Hn %d)",
			watched, perFd, extra, open, hard, faultManyFDsMin, need)
	}
	t.Logf("watching %d fds, not %d: each costs %d descriptors (%d of the driver's), %d are open, and the hard RLIMIT_NOFILE is %d (%d needed for %d)",
		watched, faultManyFDsWant, perFd, extra, open, hard, need, faultManyFDsWant)
	return watched / 2, perFd, uint64(watched*perFd+open) + faultFdMargin
}

// faultDriverFdsPerWatch counts the descriptors d opens for one more
// watched fd, by registering both ends of a socketpair directly (the loop
// is not running) and counting open fds before and after the second: the
// first registration may open what the driver or the runtime opens only
// once (the runtime's own poller, for netpoll), which is no per-fd cost.
func faultDriverFdsPerWatch(d core.Driver) (int, error) {
	a, b, err := rvRawSocketPair()
	if err != nil {
		return 0, err
	}
	defer func() {
		_ = rvClose(a)
		_ = rvClose(b)
	}()
	// Any tokens do: both fds are deregistered before a Wait could report
	// them.
	if err := d.Register(a, 1, core.Read); err != nil {
		return 0, err
	}
	defer d.Deregister(a)
	before, err := soakOpenFDs()
	if err != nil {
		return 0, err
	}
	if err := d.Register(b, 2, core.Read); err != nil {
		return 0, err
	}
	after, err := soakOpenFDs()
	if derr := d.Deregister(b); err == nil {
		err = derr
	}
	if err != nil {
		return 0, err
	}
	return max(after-before, 0), nil
}

// faultNeedFds raises the soft RLIMIT_NOFILE towards want (at most to the
// hard limit) for the rest of the case, and restores it after. If even that
// leaves less than need, it raises the hard limit too (which takes
// privilege); failing that, it fails the case: the load it pins would
// otherwise go untested without a word.
func faultNeedFds(t *testing.T, need, want uint64) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	n := min(want, max(need, uint64(old.Max)))
	if uint64(old.Cur) >= n {
		return
	}
	lim := old
	dcSetLimit(&lim.Cur, n)
	if uint64(lim.Max) < n {
		dcSetLimit(&lim.Max, n)
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("needs %d open fds; RLIMIT_NOFILE is %d (hard %d) and raising it failed: %v (raise the hard limit, e.g. ulimit -Hn %d)",
			n, old.Cur, old.Max, err, n)
	}
	t.Cleanup(func() {
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring RLIMIT_NOFILE: %v", err)
		}
	})
}
