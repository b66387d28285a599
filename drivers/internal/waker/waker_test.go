//go:build unix

package waker

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

func readable(t *testing.T, fd int) bool {
	t.Helper()
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	if err != nil && err != unix.EINTR {
		t.Fatal(err)
	}
	return n == 1
}

func kinds(t *testing.T) map[string]func(*Waker) error {
	return map[string]func(*Waker) error{"Open": (*Waker).Open, "OpenPipe": (*Waker).OpenPipe}
}

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
			var buf [16]byte
			n, _ := unix.Read(w.Fd(), buf[:])
			if name == "OpenPipe" && n != 1 {
				t.Fatalf("1000 Wakeups wrote %d bytes to the pipe, want 1 (they must coalesce)", n)
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
			bad, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(bad)
			w.w = bad // writes fail with EBADF
			if err := w.Wakeup(); !errors.Is(err, unix.EBADF) {
				t.Fatalf("Wakeup with a failing write: %v, want EBADF", err)
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

func TestTrigger(t *testing.T) {
	var w Waker
	calls := 0
	fail := true
	w.OpenTrigger(func() error {
		calls++
		if fail {
			return unix.EIO
		}
		return nil
	})
	if err := w.Wakeup(); !errors.Is(err, unix.EIO) {
		t.Fatalf("Wakeup: %v, want EIO", err)
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
