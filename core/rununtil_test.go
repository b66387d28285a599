package core_test

import (
	"errors"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// RunUntil from main runs the loop until done is closed, then returns
// while other work is still pending.
func TestRunUntilRunsUntilDone(t *testing.T) {
	l := newLoop(t)
	done := make(chan struct{})
	keep := l.Repeat(time.Hour, func(core.CallbackID) {}) // Run alone would never return
	defer l.Cancel(keep)
	l.Delay(5*time.Millisecond, func(core.CallbackID) { close(done) })
	if err := l.RunUntil(done); err != nil {
		t.Fatal(err)
	}
}

// Goroutines calling RunUntil while another runs the loop wait for their
// done or for that run to end, then take the loop over in turn; every one
// returns once its own done is closed.
func TestRunUntilFromManyGoroutines(t *testing.T) {
	l := newLoop(t)
	keep := l.Repeat(time.Hour, func(core.CallbackID) {})
	const n = 8
	dones := make([]chan struct{}, n)
	for i := range dones {
		dones[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- l.RunUntil(dones[i]) })
	}
	// Each done is closed from the loop, in turn: whoever runs it.
	for i := range n {
		l.Post(func() {
			l.Delay(time.Duration(i)*time.Millisecond, func(core.CallbackID) { close(dones[i]) })
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// Once a goroutine's run is over, main can run the loop again.
	l.Cancel(keep)
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
}

func TestRunUntilBadCalls(t *testing.T) {
	l := newLoop(t)
	done := make(chan struct{})
	var inFiber error
	l.Defer(func(core.CallbackID) { inFiber = l.RunUntil(done) })
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inFiber, core.ErrLoopRunning) {
		t.Errorf("RunUntil from a callback: %v, want ErrLoopRunning", inFiber)
	}
	if err := l.RunUntil(done); !errors.Is(err, core.ErrDeadlock) {
		t.Errorf("RunUntil with nothing to run: %v, want ErrDeadlock", err)
	}
	l.Close()
	if err := l.RunUntil(done); !errors.Is(err, core.ErrLoopClosed) {
		t.Errorf("RunUntil after Close: %v, want ErrLoopClosed", err)
	}
}

// Close takes the loop from a goroutine running it in RunUntil: that run
// stops, RunUntil returns ErrLoopClosed, and Close succeeds.
func TestCloseTakesTheLoopFromRunUntil(t *testing.T) {
	l := core.New(newTimerDriver())
	l.Repeat(time.Hour, func(core.CallbackID) {})
	started := make(chan struct{})
	l.Defer(func(core.CallbackID) { close(started) })
	res := make(chan error, 1)
	go func() { res <- l.RunUntil(make(chan struct{})) }()
	<-started
	if err := l.Close(); err != nil {
		t.Fatalf("Close while a goroutine runs the loop in RunUntil: %v", err)
	}
	if err := <-res; !errors.Is(err, core.ErrLoopClosed) {
		t.Fatalf("RunUntil after Close: %v, want ErrLoopClosed", err)
	}
}

// Close takes the loop from a RunUntil run while other goroutines wait in
// RunUntil for it: a waiter's failed claim must not hide the run that
// holds the loop (each goroutine blocked in a socket or fiber call waits
// so).
func TestCloseTakesTheLoopFromRunUntilAmongWaiters(t *testing.T) {
	l := core.New(newTimerDriver())
	l.Repeat(time.Hour, func(core.CallbackID) {})
	started := make(chan struct{})
	l.Defer(func(core.CallbackID) { close(started) })
	const waiters = 3
	res := make(chan error, 1+waiters)
	go func() { res <- l.RunUntil(make(chan struct{})) }()
	<-started
	for range waiters {
		go func() { res <- l.RunUntil(make(chan struct{})) }()
	}
	// Each waiter has tried to claim the loop and now waits for the run
	// to end.
	waits := regexp.MustCompile(`\[select[^\]]*\]:\n[^\n]*core\.\(\*Loop\)\.RunUntil\(`)
	buf := make([]byte, 1<<20)
	for len(waits.FindAllIndex(buf[:runtime.Stack(buf, true)], -1)) < waiters {
		time.Sleep(time.Millisecond)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close while a goroutine runs the loop in RunUntil and %d wait: %v", waiters, err)
	}
	for range 1 + waiters {
		if err := <-res; !errors.Is(err, core.ErrLoopClosed) {
			t.Fatalf("RunUntil after Close: %v, want ErrLoopClosed", err)
		}
	}
}

// A goroutine waiting in RunUntil while another goroutine's run goes on
// takes the loop over when that run ends, its own done still open: the
// end of the run is what wakes it (nothing else is left to close its done
// but a run of its own).
func TestRunUntilTakesOverWhenTheRunEnds(t *testing.T) {
	l := newLoop(t)
	keep := l.Repeat(time.Hour, func(core.CallbackID) {}) // no run ends for want of callbacks
	done1, done2 := make(chan struct{}), make(chan struct{})
	second := make(chan error, 1)
	l.Defer(func(core.CallbackID) {
		go func() { second <- l.RunUntil(done2) }()
		if err := waitingInRunUntil(); err != nil {
			t.Error(err)
		}
		close(done1)
	})
	if err := l.RunUntil(done1); err != nil {
		t.Fatal(err)
	}
	// The loop runs no more unless the waiting goroutine runs it.
	if err := l.Post(func() {
		l.Cancel(keep)
		close(done2)
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-second:
		if err != nil {
			t.Fatalf("the second RunUntil: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the goroutine waiting in RunUntil did not take the loop over when the first run ended")
	}
}

// waitingInRunUntil returns once a goroutine waits in RunUntil's select for
// its done or the end of the current run (a hang guard of a minute).
func waitingInRunUntil() error {
	waits := regexp.MustCompile(`\[select[^\]]*\]:\n[^\n]*core\.\(\*Loop\)\.RunUntil\(`)
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if waits.Match(buf[:runtime.Stack(buf, true)]) {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("no goroutine came to wait in RunUntil")
		}
	}
}

// A RunUntil that has returned, whether it ran the loop itself or waited
// on another goroutine's run until its done was closed, leaves no claim on
// the loop behind: a Close during the owner's later Run is refused
// (ErrLoopRunning), as it is with no RunUntil ever called, instead of
// stopping that Run as if a RunUntil held it.
func TestRunUntilLeavesNoClaimBehind(t *testing.T) {
	for _, how := range []string{"ran the loop", "waited on another run"} {
		t.Run(how, func(t *testing.T) {
			l := core.New(newTimerDriver())
			defer l.Close()
			keep := l.Repeat(time.Hour, func(core.CallbackID) {})
			started := make(chan struct{})
			ran := make(chan error, 1)
			if how == "ran the loop" {
				done := make(chan struct{})
				l.Defer(func(core.CallbackID) { close(done) })
				if err := l.RunUntil(done); err != nil {
					t.Fatalf("RunUntil: %v", err)
				}
				l.Defer(func(core.CallbackID) { close(started) })
				go func() { ran <- l.Run() }()
				<-started
			} else {
				l.Defer(func(core.CallbackID) { close(started) })
				go func() { ran <- l.Run() }()
				<-started
				done := make(chan struct{})
				waited := make(chan error, 1)
				go func() { waited <- l.RunUntil(done) }()
				if err := waitingInRunUntil(); err != nil {
					t.Fatal(err)
				}
				close(done)
				if err := <-waited; err != nil {
					t.Fatalf("RunUntil: %v", err)
				}
			}
			if err := l.Close(); !errors.Is(err, core.ErrLoopRunning) {
				t.Fatalf("Close while the owner's Run goes on, after a RunUntil returned: %v, want ErrLoopRunning", err)
			}
			if err := l.Post(func() { l.Cancel(keep) }); err != nil {
				t.Fatal(err)
			}
			if err := <-ran; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("Close after Run returned: %v", err)
			}
		})
	}
}
