//go:build unix || windows

package waker

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// Wakeups coalesce: a thousand cost one write, and one Drain empties the fd.
func TestWakeupsCoalesceAndDrain(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			var w Waker
			if err := open(&w); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if readable(t, w.Fd()) {
				t.Fatal("readable before any Wakeup")
			}
			for range 1000 {
				if err := w.Wakeup(); err != nil {
					t.Fatal(err)
				}
			}
			if !readable(t, w.Fd()) {
				t.Fatal("not readable after Wakeup")
			}
			if n := readOnce(t, w.Fd()); name != "Open eventfd" && n != 1 {
				t.Fatalf("1000 Wakeups wrote %d bytes, want 1 (they must coalesce)", n)
			}
			w.Drain()
			if readable(t, w.Fd()) {
				t.Fatal("readable after Drain")
			}
			if err := w.Wakeup(); err != nil || !readable(t, w.Fd()) {
				t.Fatalf("Wakeup after Drain: %v, readable %v; want nil, true", err, readable(t, w.Fd()))
			}
		})
	}
}

// A failed write must not leave the pending flag set: every later Wakeup
// would be a no-op, and a loop blocked in its driver would never wake.
func TestFailedWakeupIsRetried(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			var w Waker
			if err := open(&w); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			good := w.w
			bad, want := unwritable(t)
			w.w = bad
			if err := w.Wakeup(); !errors.Is(err, want) {
				t.Fatalf("Wakeup with a failing write: %v, want %v", err, want)
			}
			w.w = good
			if err := w.Wakeup(); err != nil {
				t.Fatal(err)
			}
			if !readable(t, w.Fd()) {
				t.Fatal("the Wakeup after a failed one did not write: the pending flag stayed set")
			}
		})
	}
}

var errTriggerFailed = errors.New("trigger failed")

func TestTrigger(t *testing.T) {
	var w Waker
	calls := 0
	fail := true
	w.OpenTrigger(func() error {
		calls++
		if fail {
			return errTriggerFailed
		}
		return nil
	})
	if err := w.Wakeup(); !errors.Is(err, errTriggerFailed) {
		t.Fatalf("Wakeup: %v, want %v", err, errTriggerFailed)
	}
	fail = false
	w.Wakeup()
	w.Wakeup()
	if calls != 2 {
		t.Fatalf("trigger called %d times, want 2 (one failed, then one for two coalesced Wakeups)", calls)
	}
	w.Drain()
	w.Wakeup()
	if calls != 3 {
		t.Fatalf("trigger called %d times after Drain, want 3", calls)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Wakeup(); !errors.Is(err, driver.ErrClosed) {
		t.Fatalf("Wakeup after Close: %v, want driver.ErrClosed", err)
	}
}

// Close racing Wakeups from other goroutines (Drain and Close belong to
// the loop's goroutine): no write reaches a released number, every Wakeup
// after Close says ErrClosed, and a second Close returns nil.
func TestCloseRacesWakeup(t *testing.T) {
	for name, open := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			var w Waker
			if err := open(&w); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			stop := time.Now().Add(20 * time.Millisecond)
			for range 4 {
				wg.Go(func() {
					for time.Now().Before(stop) {
						if err := w.Wakeup(); err != nil && !errors.Is(err, driver.ErrClosed) {
							t.Error(err)
							return
						}
					}
				})
			}
			time.Sleep(5 * time.Millisecond)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if err := w.Wakeup(); !errors.Is(err, driver.ErrClosed) {
				t.Fatalf("Wakeup after Close: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
		})
	}
}
