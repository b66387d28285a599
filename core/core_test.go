package core_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

func newLoop(t *testing.T, opts ...core.Option) *core.Loop {
	t.Helper()
	l := core.New(newTimerDriver(), opts...)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

func TestDeferOrderAndMicrotasks(t *testing.T) {
	l := newLoop(t)
	var log []string
	l.Queue(func() { log = append(log, "q0") })
	l.Defer(func(core.CallbackID) {
		log = append(log, "d1")
		l.Queue(func() { log = append(log, "q1") })
	})
	l.Defer(func(core.CallbackID) { log = append(log, "d2") })
	require.NoError(t, l.Run())
	assert.Equal(t, []string{"q0", "d1", "q1", "d2"}, log)
	assert.Zero(t, l.Stats().FibersLive)
}

func TestDelayNeverEarly(t *testing.T) {
	l := newLoop(t)
	start := time.Now()
	var at time.Duration
	l.Delay(20*time.Millisecond, func(core.CallbackID) { at = time.Since(start) })
	require.NoError(t, l.Run())
	assert.GreaterOrEqual(t, at, 20*time.Millisecond)
}

func TestRepeatAndCancel(t *testing.T) {
	l := newLoop(t)
	n := 0
	l.Repeat(time.Millisecond, func(id core.CallbackID) {
		n++
		if n == 3 {
			l.Cancel(id)
		}
	})
	require.NoError(t, l.Run())
	assert.Equal(t, 3, n)
}

func TestSuspendFromMainResumedByTimer(t *testing.T) {
	l := newLoop(t)
	s := l.Suspension()
	l.Delay(time.Millisecond, func(core.CallbackID) { s.Resume(42) })
	v, err := s.Suspend()
	require.NoError(t, err)
	assert.Equal(t, 42, v)
}

func TestSuspendFromMainDeadlock(t *testing.T) {
	l := newLoop(t)
	l.Defer(func(core.CallbackID) {
		_, _ = l.Suspension().Suspend()
	})
	_, err := l.Suspension().Suspend()
	require.ErrorIs(t, err, core.ErrDeadlock)
	assert.Contains(t, err.Error(), "1 fiber suspended:")
	assert.Contains(t, err.Error(), "TestSuspendFromMainDeadlock")
}

// A main Suspension that a deadlock ended is done with: Suspension then
// gives main a new one, which suspends and resumes as the first would have.
func TestMainSuspensionAfterADeadlockIsNew(t *testing.T) {
	l := newLoop(t)
	s := l.Suspension()
	_, err := s.Suspend()
	require.ErrorIs(t, err, core.ErrDeadlock)
	s2 := l.Suspension()
	assert.NotSame(t, s, s2)
	l.Defer(func(core.CallbackID) { s2.Resume(7) })
	v, err := s2.Suspend()
	require.NoError(t, err)
	assert.Equal(t, 7, v)
}

func TestPanicComesOutOfRun(t *testing.T) {
	l := newLoop(t)
	id := l.Defer(func(core.CallbackID) { panic("boom") })
	err := l.Run()
	var u *core.UncaughtError
	require.True(t, errors.As(err, &u), "got %v", err)
	assert.Equal(t, id, u.ID)
	assert.Equal(t, core.TypeDefer, u.Type)
	assert.Contains(t, string(u.Stack), "core_test.go")
	require.NoError(t, l.Run())
}

func TestCloseUnwindsSuspendedFibers(t *testing.T) {
	l := core.New(newTimerDriver())
	unwound := 0
	var errs []error
	for range 10 {
		l.Defer(func(core.CallbackID) {
			defer func() { unwound++ }()
			_, err := l.Suspension().Suspend()
			errs = append(errs, err)
		})
	}
	require.NoError(t, l.Run())
	assert.Equal(t, 10, l.Stats().FibersLive)
	require.NoError(t, l.Close())
	assert.Equal(t, 10, unwound)
	for _, err := range errs {
		assert.ErrorIs(t, err, core.ErrLoopClosed)
	}
	require.NoError(t, l.Close())
	assert.ErrorIs(t, l.Run(), core.ErrLoopClosed)
}

// sleepDriver tells the test when the loop has gone to sleep in it (a Wait
// that may block) and counts the Wakeups that found it asleep.
type sleepDriver struct {
	*timerDriver
	asleep   chan struct{} // a blocking Wait has begun
	blocking atomic.Bool
	woken    atomic.Int32 // Wakeups made while a blocking Wait was in progress
}

func (d *sleepDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if timeout == 0 {
		return d.timerDriver.Wait(events, 0)
	}
	d.blocking.Store(true)
	defer d.blocking.Store(false)
	select {
	case d.asleep <- struct{}{}:
	default:
	}
	return d.timerDriver.Wait(events, timeout)
}

func (d *sleepDriver) Wakeup() error {
	if d.blocking.Load() {
		d.woken.Add(1)
	}
	return d.timerDriver.Wakeup()
}

// A Post from another goroutine wakes a loop asleep in its driver. The
// goroutine posts once the loop is in a blocking Wait (not after a sleep
// that hopes so), the driver checks that the wakeup found it there, and a
// watchdog timer, the only thing that keeps the loop alive, turns a lost
// wakeup into a failure after a few seconds.
func TestPostFromGoroutineWakesLoop(t *testing.T) {
	d := &sleepDriver{timerDriver: newTimerDriver(), asleep: make(chan struct{}, 1)}
	l := core.New(d)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	const watchdog = 5 * time.Second
	s := l.Suspension()
	l.Delay(watchdog, func(core.CallbackID) {
		s.Throw(fmt.Errorf("watchdog: not resumed %v after the loop went to sleep: the Post did not wake it", watchdog))
	})
	posted := make(chan error, 1)
	go func() {
		select {
		case <-d.asleep:
			posted <- l.Post(func() { s.Resume("posted") })
		case <-time.After(2 * watchdog):
			posted <- errors.New("the loop never went to sleep in its driver")
		}
	}()
	v, err := s.Suspend()
	require.NoError(t, <-posted)
	require.NoError(t, err)
	assert.Equal(t, "posted", v)
	assert.Equal(t, int32(1), d.woken.Load(), "Wakeups that found the loop asleep in its driver")
}

// gatedDriver holds a blocking Wait until the test opens the gate, however
// often it is woken, and counts the wakeups.
type gatedDriver struct {
	*timerDriver
	waiting chan struct{} // a blocking Wait has begun
	gate    chan struct{}
	wakeups atomic.Int32
}

func (d *gatedDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if timeout != 0 {
		d.waiting <- struct{}{}
		<-d.gate
	}
	return d.timerDriver.Wait(events, 0)
}

func (d *gatedDriver) Wakeup() error {
	d.wakeups.Add(1)
	return d.timerDriver.Wakeup()
}

// A burst of posts to a sleeping loop wakes it once: only the post that
// finds the list empty checks whether the loop sleeps.
func TestPostBurstWakesOnce(t *testing.T) {
	d := &gatedDriver{timerDriver: newTimerDriver(), waiting: make(chan struct{}, 1), gate: make(chan struct{})}
	l := core.New(d)
	const n = 100
	ran := 0
	keep := l.Delay(time.Hour, func(core.CallbackID) {})
	go func() {
		<-d.waiting
		for range n {
			_ = l.Post(func() {
				if ran++; ran == n {
					l.Cancel(keep)
				}
			})
		}
		close(d.gate)
	}()
	require.NoError(t, l.Run())
	assert.Equal(t, n, ran)
	assert.Equal(t, int32(1), d.wakeups.Load(), "wakeups for %d posts to a sleeping loop", n)
	require.NoError(t, l.Close())
}

// countingDriver counts Waits.
type countingDriver struct {
	*timerDriver
	waits int
}

func (d *countingDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	d.waits++
	return d.timerDriver.Wait(events, timeout)
}

// A tick that has no fd to poll and must not block makes no driver call
// (Revolt skips stream_select when no stream is watched).
func TestBusyTicksWithoutFdsMakeNoSyscall(t *testing.T) {
	d := &countingDriver{timerDriver: newTimerDriver()}
	l := core.New(d)
	defer l.Close()
	n := 0
	var fn func(core.CallbackID)
	fn = func(core.CallbackID) {
		if n++; n < 1000 {
			l.Defer(fn)
		}
	}
	l.Defer(fn)
	require.NoError(t, l.Run())
	assert.Equal(t, 1000, n)
	assert.Zero(t, d.waits, "driver Waits during 1000 busy ticks")
	assert.GreaterOrEqual(t, l.Stats().Ticks, uint64(1000))
}
