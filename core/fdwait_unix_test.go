//go:build unix

package core_test

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// lockFD is an FD of l on a pipe's read end of its own, closed by the FD.
func lockFD(t *testing.T, l *core.Loop) *core.FD {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[1]) })
	p := new(core.FD)
	if err := p.Init(l, fds[0], net.ErrClosed); err != nil {
		syscall.Close(fds[0])
		t.Fatal(err)
	}
	return p
}

// onFiber runs fn in a fiber of l, or from a goroutine of its own that
// nobody else runs the loop for, and waits for it (at most 5 s).
func onFiber(t *testing.T, l *core.Loop, fiber bool, fn func()) {
	t.Helper()
	done := make(chan struct{})
	if !fiber {
		go func() { defer close(done); fn() }()
	} else {
		l.Defer(func(core.CallbackID) { defer close(done); fn() })
		guard := time.AfterFunc(5*time.Second, l.Stop)
		defer guard.Stop()
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after 5 s")
	}
}

// lockedFD runs body for a waiter that is a fiber and for one that is a
// goroutine, each with a loop and an FD whose direction mode is locked.
func lockedFD(t *testing.T, mode core.Interest, body func(t *testing.T, l *core.Loop, p *core.FD, fiber bool)) {
	for _, fiber := range []bool{true, false} {
		t.Run(map[bool]string{true: "fiber", false: "goroutine"}[fiber], func(t *testing.T) {
			l := core.New(newTimerDriver())
			defer l.Close()
			p := lockFD(t, l)
			if err := p.Lock(mode); err != nil {
				t.Fatal(err)
			}
			body(t, l, p, fiber)
		})
	}
}

// The turn an Unlock passes between a caller counting itself as a waiter
// and its wait is kept for that wait: the lock is free, and nobody else
// would ever pass one again. Taking it uses it up: none is left over for a
// later call to take while the lock is held.
func TestLockTurnPassedBeforeItsWait(t *testing.T) {
	lockedFD(t, core.Write, func(t *testing.T, l *core.Loop, p *core.FD, fiber bool) {
		defer p.Close()
		unlocked := false
		defer core.SetLockWaitHook(func() {
			if !unlocked {
				unlocked = true
				p.Unlock(core.Write) // the holder leaves just then
			}
		})()
		var err error
		onFiber(t, l, fiber, func() { err = p.Lock(core.Write) })
		if err != nil || !unlocked {
			t.Fatalf("Lock: %v (the hook ran: %v)", err, unlocked)
		}
		if n := core.FDFreeTurns(p, core.Write); n != 0 {
			t.Errorf("turns passed and not taken once the call took its turn: %d, want 0", n)
		}
		p.Unlock(core.Write)
	})
}

// Close wakes the calls that wait for a direction's lock, in either
// direction, which then return the closed error; the holder's own call is
// left to end.
func TestCloseWakesTurnWaiters(t *testing.T) {
	for _, mode := range []core.Interest{core.Read, core.Write} {
		t.Run(map[core.Interest]string{core.Read: "read", core.Write: "write"}[mode], func(t *testing.T) {
			lockedFD(t, mode, func(t *testing.T, l *core.Loop, p *core.FD, fiber bool) {
				closed := make(chan error, 1)
				defer core.SetLockWaitHook(func() {
					go func() { closed <- p.Close() }() // returns once the holder unlocks
				})()
				var err error
				onFiber(t, l, fiber, func() {
					err = p.Lock(mode)
					p.Unlock(mode) // the holder's: Close waits for it
				})
				if err != net.ErrClosed {
					t.Fatalf("Lock waiting for the turn when Close came: %v, want net.ErrClosed", err)
				}
				if err := <-closed; err != nil {
					t.Fatalf("Close: %v", err)
				}
			})
		})
	}
}

// One call waits in a direction at a time; a second is a misuse that
// panics and names it, instead of leaving the first call unwoken.
func TestSecondWaitInADirectionPanics(t *testing.T) {
	l := core.New(newTimerDriver(), core.WithoutFileIDs())
	defer l.Close()
	p := lockFD(t, l)
	defer p.Close()
	var x core.FDWatch
	var got any
	l.Defer(func(core.CallbackID) {
		if err := p.Watch(core.Read, &x, func() {}); err != nil {
			t.Errorf("Watch on an open FD: %v", err)
		}
		defer func() { got = recover(); x.Stop() }()
		p.Acquire()
		defer p.Release()
		_ = p.Wait(core.Read)
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if s, _ := got.(string); !strings.Contains(s, "a second wait in one direction") {
		t.Fatalf("a Wait while a watch is armed in its direction: %v, want a panic that says so", got)
	}
}

// Releases and Unlocks without their Acquire or Lock panic, naming them.
func TestFDMisusePanics(t *testing.T) {
	l := core.New(newTimerDriver())
	defer l.Close()
	p := lockFD(t, l)
	defer p.Close()
	for name, f := range map[string]func(){
		"FD.Release called without a reference":              p.Release,
		"FD.Unlock called on a direction that is not locked": func() { p.Unlock(core.Write) },
		"the direction must be Read or Write":                func() { _ = p.Lock(core.Read | core.Write) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.Contains(s, name) {
					t.Errorf("panic %q, want one that says %q", s, name)
				}
			}()
			f()
		}()
	}
}

// Watch says why it arms nothing; a passed deadline stops only a watch
// that asked for it (OnDeadline), so that a peer watch re-armed after a
// read deadline passed waits for readiness instead of running every tick.
func TestWatchSaysWhy(t *testing.T) {
	l := core.New(newTimerDriver(), core.WithoutFileIDs())
	defer l.Close()
	p := lockFD(t, l)
	p.SetDeadline(core.Read, time.Now().Add(-time.Second))
	var plain, timed core.FDWatch
	timed.OnDeadline = true
	var errs [3]error
	l.Defer(func(core.CallbackID) {
		errs[0] = p.Watch(core.Read, &plain, func() {})
		errs[1] = p.Watch(core.Write, &timed, func() {})
		p.SetDeadline(core.Write, time.Now().Add(-time.Second))
		timed.Stop()
		errs[2] = p.Watch(core.Write, &timed, func() {})
		plain.Stop()
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil || errs[2] != os.ErrDeadlineExceeded {
		t.Fatalf("Watch with a passed deadline: %v (plain), %v (no deadline yet), %v (OnDeadline), want nil, nil, os.ErrDeadlineExceeded", errs[0], errs[1], errs[2])
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	l.Defer(func(core.CallbackID) { errs[0] = p.Watch(core.Read, &plain, func() {}) })
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if errs[0] != net.ErrClosed {
		t.Fatalf("Watch after Close: %v, want the closed error", errs[0])
	}
}

// A call past the million references an FD counts panics and names it,
// the Lock that would take a free lock too, instead of carrying the count
// into the lock's waiters.
func TestFDTooManyUsersPanics(t *testing.T) {
	l := core.New(newTimerDriver(), core.WithoutFileIDs())
	defer l.Close()
	var p core.FD
	if err := p.Init(l, notOpen, net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	const most = 1<<20 - 1
	for range most {
		p.Acquire()
	}
	for name, f := range map[string]func(){
		"Acquire":     func() { p.Acquire() },
		"Lock(Read)":  func() { _ = p.Lock(core.Read) },
		"Lock(Write)": func() { _ = p.Lock(core.Write) },
	} {
		func() {
			defer func() {
				if s, _ := recover().(string); !strings.Contains(s, "more than a million calls in progress") {
					t.Errorf("%s with %d references held: panic %q, want one that names the limit", name, most, s)
				}
			}()
			f()
		}()
	}
	if t.Failed() {
		return // the count is no longer one of references
	}
	for range most {
		p.Release()
	}
	if err := p.Lock(core.Read); err != nil {
		t.Fatalf("Lock once every reference was released: %v", err)
	}
	p.Unlock(core.Read)
}

// A call that waits for a direction's lock counts itself once, in its own
// direction, and the turn handed to it takes it off the count again. (A
// count that went the wrong way would still hand the turn on, until it
// wrapped: about a million waits later, a lost turn or a false panic.)
func TestLockCountsItsWaiterOnce(t *testing.T) {
	lockedFD(t, core.Read, func(t *testing.T, l *core.Loop, p *core.FD, fiber bool) {
		defer p.Close()
		type count struct{ rd, wr uint64 }
		counted := func() count { return count{core.FDLockWaiters(p, core.Read), core.FDLockWaiters(p, core.Write)} }
		var waiting count
		defer core.SetLockWaitHook(func() {
			waiting = counted()
			p.Unlock(core.Read) // the holder leaves: the turn goes to the waiter
		})()
		var err error
		onFiber(t, l, fiber, func() { err = p.Lock(core.Read) })
		if err != nil {
			t.Fatal(err)
		}
		locked := counted()
		p.Unlock(core.Read)
		if want := (count{1, 0}); waiting != want || locked != (count{}) || counted() != (count{}) {
			t.Fatalf("lock waiters (read, write) counted while the call waited: %v, once it had the lock: %v, after its Unlock: %v; want %v, none, none", waiting, locked, counted(), want)
		}
	})
}

// An Unlock gives up its own direction's lock only: after Lock(Read),
// Lock(Write) and Unlock(Read), a Lock(Read) takes the lock at once and a
// Lock(Write) waits for its turn (which the hook hands it).
func TestUnlockLeavesTheOtherDirectionLocked(t *testing.T) {
	lockedFD(t, core.Read, func(t *testing.T, l *core.Loop, p *core.FD, fiber bool) {
		if err := p.Lock(core.Write); err != nil {
			t.Fatal(err)
		}
		p.Unlock(core.Read)
		var waited []core.Interest
		var mode core.Interest
		defer core.SetLockWaitHook(func() {
			waited = append(waited, mode)
			p.Unlock(mode) // the holder leaves
		})()
		var errs [2]error
		onFiber(t, l, fiber, func() {
			for i, m := range []core.Interest{core.Read, core.Write} {
				mode = m
				errs[i] = p.Lock(m)
			}
		})
		if errs != [2]error{} || len(waited) != 1 || waited[0] != core.Write {
			// The lock's state is not what the test knows: the FD is
			// left unclosed rather than a Close waiting for a user.
			t.Fatalf("after Unlock(Read) with the Write lock held, Lock(Read) and Lock(Write) returned %v and waited in %v; want nil, nil and only the Write one waiting", errs, waited)
		}
		p.Unlock(core.Read)
		p.Unlock(core.Write)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// Unlocks that misuse the lock panic and name it, even where the common
// case would let them through: a direction that is neither Read nor
// Write while Read is locked, and an Unlock whose reference a Release
// gave back already.
func TestFDUnlockMisusePanics(t *testing.T) {
	for _, c := range []struct {
		name, want string
		misuse     func(p *core.FD)
	}{
		{"Unlock(Read|Write) with Read locked", "the direction must be Read or Write", func(p *core.FD) {
			defer p.Unlock(core.Read)
			p.Unlock(core.Read | core.Write)
		}},
		{"Unlock(Read) after a Release", "FD.Unlock called on a direction that is not locked", func(p *core.FD) {
			p.Release()
			p.Unlock(core.Read)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := core.New(newTimerDriver())
			defer l.Close()
			p := lockFD(t, l)
			if err := p.Lock(core.Read); err != nil {
				t.Fatal(err)
			}
			var got string
			func() {
				defer func() { got, _ = recover().(string) }()
				c.misuse(p)
			}()
			if !strings.Contains(got, c.want) {
				// The lock's state is not what the test knows: the FD
				// is left unclosed rather than a Close waiting for a user.
				t.Fatalf("panic %q, want one that says %q", got, c.want)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A goroutine's Lock that waits for its turn while the run it makes meets
// an uncaught error does not give the wait up (the turn passed to it would
// be lost): it takes the turn, hands it on and reports the error.
func TestGoroutineLockReportsUncaughtError(t *testing.T) {
	l := core.New(newTimerDriver())
	defer l.Close()
	p := lockFD(t, l)
	if err := p.Lock(core.Read); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	l.Defer(func(core.CallbackID) { panic(boom) })
	l.Defer(func(core.CallbackID) { p.Unlock(core.Read) })
	var err error
	onFiber(t, l, false, func() { err = p.Lock(core.Read) })
	if !errors.Is(err, boom) {
		t.Fatalf("Lock waiting for its turn when a callback panicked: %v, want the uncaught error", err)
	}
	waited := false
	defer core.SetLockWaitHook(func() { waited = true; p.Unlock(core.Read) })()
	if err := p.Lock(core.Read); err != nil || waited {
		t.Fatalf("Lock after the turn was handed on: %v (it waited: %v), want nil at once", err, waited)
	}
	p.Unlock(core.Read)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// A wait in each direction in turn gets its direction into the fd's
// registration and is woken by its readiness: the second direction is
// added to a registration the first made. The fd number is a fake one the
// scripted driver reports ready (never closed: it names no file of ours).
func TestWaitSeesReadinessInEachDirection(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv, core.WithoutFileIDs())
	defer l.Close()
	var p core.FD
	if err := p.Init(l, fdBase, net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	drv.ready[fdBase] = core.Read | core.Write
	var errs []error
	rescued := false
	l.Defer(func(core.CallbackID) {
		p.Acquire()
		defer p.Release()
		guard := l.Delay(5*time.Second, func(core.CallbackID) {
			rescued = true // the wait was never woken: end it
			p.SetDeadline(core.Read|core.Write, time.Now().Add(-time.Second))
		})
		defer l.Cancel(guard)
		for _, mode := range []core.Interest{core.Read, core.Write} {
			errs = append(errs, p.Wait(mode))
		}
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if rescued || len(errs) != 2 || errs[0] != nil || errs[1] != nil {
		t.Fatalf("waits for a ready fd, Read then Write: %v (woken only by the 5 s guard: %v), want nil, nil", errs, rescued)
	}
}

// The error a driver reports with an fd's readiness is the FD's Errno
// once the wait it ended returns (where SO_ERROR is left empty by the
// poller, a connect learns its failure there); none reported, none kept.
func TestWaitKeepsTheDriversErrno(t *testing.T) {
	drv := newScriptFD()
	drv.errno = map[int]syscall.Errno{}
	l := core.New(drv, core.WithoutFileIDs())
	defer l.Close()
	var p core.FD
	if err := p.Init(l, fdBase, net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	var before, after syscall.Errno
	var err error
	l.Defer(func(core.CallbackID) {
		p.Acquire()
		defer p.Release()
		drv.ready[fdBase] = core.Write
		err = p.Wait(core.Write)
		before = p.Errno()
		drv.errno[fdBase] = syscall.ECONNREFUSED
		if err == nil {
			err = p.Wait(core.Write)
		}
		after = p.Errno()
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if err != nil || before != 0 || after != syscall.ECONNREFUSED {
		t.Fatalf("Errno after a readiness with none: %v, after one with ECONNREFUSED: %v (waits: %v); want 0, ECONNREFUSED", before, after, err)
	}
}
