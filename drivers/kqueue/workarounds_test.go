//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"golang.org/x/sys/unix"
)

// READ and WRITE on one fd: libkqueue 2.3.1 fails the second EV_ADD with
// EFAULT (KQUEUE.md, bug 1), so the driver puts the second filter on a dup
// and maps its events back. Both orders of adding, one Event per fd per
// Wait, and no dup left behind.
func TestReadWriteOnOneFd(t *testing.T) {
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		f := newFds(t)
		a, b := f.pair()
		write(t, b, "x") // a is readable and writable
		before := openFds(1024)

		expect := func(in core.Interest, dups int) {
			t.Helper()
			evs := wait(t, d, time.Second)
			if len(evs) != 1 || evs[0].Token != 1 || evs[0].Ready != in || evs[0].Closed {
				t.Fatalf("interest %v: Wait reported %v, want one event {1 %v}", in, evs, in)
			}
			if !kqueue.WritesOnDup {
				dups = 0
			}
			if got := d.Dups(); got != dups {
				t.Fatalf("interest %v: the driver holds %d dups, want %d", in, got, dups)
			}
		}
		if err := d.Register(a, 1, core.Read|core.Write); err != nil {
			t.Fatalf("Register rw: %v", err)
		}
		expect(core.Read|core.Write, 1)
		for _, step := range []struct {
			in   core.Interest
			dups int
		}{
			{core.Read, 0},
			{core.Read | core.Write, 1}, // WRITE joins READ: on a dup
			{core.Write, 1},             // READ leaves the fd, WRITE stays on the dup
			{core.Read | core.Write, 1}, // READ comes back to the fd
			{core.Write, 1},
			{0, 0},
		} {
			if err := d.Modify(a, 1, step.in); err != nil {
				t.Fatalf("Modify(%v): %v", step.in, err)
			}
			if step.in == 0 {
				if evs := wait(t, d, 20*time.Millisecond); len(evs) != 0 {
					t.Fatalf("interest 0: Wait reported %v", evs)
				}
				continue
			}
			expect(step.in, step.dups)
		}
		// WRITE first, then READ joins it: READ goes on the dup.
		if err := d.Modify(a, 1, core.Write); err != nil {
			t.Fatalf("Modify(w): %v", err)
		}
		if err := d.Modify(a, 1, core.Read|core.Write); err != nil {
			t.Fatalf("Modify(rw) after w: %v", err)
		}
		expect(core.Read|core.Write, 1)
		if err := d.Deregister(a); err != nil {
			t.Fatalf("Deregister: %v", err)
		}
		if d.Dups() != 0 {
			t.Fatalf("Deregister left %d dups", d.Dups())
		}
		for fd := range openFds(1024) {
			if !before[fd] {
				t.Errorf("fd %d opened by the driver is still open after Deregister", fd)
			}
		}
		// Forgotten in the kqueue too: registering again works (an EV_ADD
		// on a leftover knote would fail, KQUEUE.md bug 2).
		if err := d.Register(a, 2, core.Read|core.Write); err != nil {
			t.Fatalf("Register after Deregister: %v", err)
		}
		if e, _ := waitFor(t, d, 2, time.Second); e.Ready != core.Read|core.Write {
			t.Fatalf("after re-Register: %v", e)
		}
	})
}

// registerThenClose registers a readable socket for in under token 1 and
// closes it behind the driver's back; it returns the fds still open and
// the closed number.
func registerThenClose(t *testing.T, d *kqueue.Driver, in core.Interest) (*fdset, int) {
	t.Helper()
	f := newFds(t)
	a, b := f.pair()
	write(t, b, "x")
	if err := d.Register(a, 1, in); err != nil {
		t.Fatalf("Register: %v", err)
	}
	f.close(a)
	return f, a
}

// An fd closed while registered and its number reused: libkqueue keeps a
// stale knote that breaks the next fd with that number unless it is
// deleted (KQUEUE.md, bug 3), and epoll keeps reporting the closed fd while
// the driver's dup holds its file open; a kernel drops the knotes silently.
// Either way the old registration ends in one Closed event and the new file
// registers and reports normally.
func TestCloseAndReuse(t *testing.T) {
	for _, in := range []core.Interest{core.Read, core.Write, core.Read | core.Write, 0} {
		t.Run(in.String(), func(t *testing.T) {
			if in == 0 && kqueue.CloseRemovesKnotes {
				t.Skip("on a kernel, a socket of interest 0 has neither a knote to probe nor an inode to compare (see doc.go)")
			}
			eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
				f, a := registerThenClose(t, d, in)
				c, e := f.pairAt(a)
				// The core deregisters before closing; a caller that did
				// not and registers the new file finds the number free.
				if err := d.Register(c, 2, core.Read); err != nil {
					t.Fatalf("Register of the reused number %d: %v", c, err)
				}
				write(t, e, "y")
				var closed, ready int
				deadline := time.Now().Add(2 * time.Second)
				for ready == 0 && time.Now().Before(deadline) {
					for _, ev := range wait(t, d, time.Second) {
						switch {
						case ev.Token == 1 && ev.Closed:
							closed++
						case ev.Token == 1:
							t.Fatalf("the closed registration reported Ready %v", ev.Ready)
						case ev.Token == 2 && ev.Ready == core.Read && !ev.Closed:
							ready++
						default:
							t.Fatalf("unexpected event %v", ev)
						}
					}
				}
				if closed != 1 || ready == 0 {
					t.Fatalf("got %d Closed events for the old registration and %d Ready for the new, want 1 and some", closed, ready)
				}
				if d.Dups() != 0 {
					t.Fatalf("%d dups left after the closed registration", d.Dups())
				}
				if err := d.Deregister(c); err != nil {
					t.Fatalf("Deregister of the new registration: %v", err)
				}
			})
		})
	}
}

// The same without a second Register: the closed fd is found by the
// driver's own checks, reported once as Closed, never as Ready, and the
// driver then blocks instead of spinning. With READ and WRITE, the dup
// keeps the file open, so libkqueue would report it ready forever.
func TestClosedFdIsFound(t *testing.T) {
	for _, in := range []core.Interest{core.Read, core.Read | core.Write, 0} {
		t.Run(in.String(), func(t *testing.T) {
			eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
				_, a := registerThenClose(t, d, in)
				e, took := waitFor(t, d, 1, 2*time.Second)
				if !e.Closed {
					t.Fatalf("closed fd reported %v, want Closed", e)
				}
				// Found by the next sweep (about 10 ms after the
				// Register, see doc.go); generous for shared machines.
				if took > time.Second {
					t.Errorf("closed fd found after %v", took)
				}
				start := time.Now()
				if evs := wait(t, d, 50*time.Millisecond); len(evs) != 0 {
					t.Fatalf("Wait after the Closed event reported %v", evs)
				}
				if took := time.Since(start); took < 50*time.Millisecond {
					t.Errorf("Wait(50ms) after the Closed event returned after %v: a spin?", took)
				}
				if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Deregister after Closed: %v, want fs.ErrNotExist", err)
				}
			})
		})
	}
}

// A Wait blocked forever finds an fd closed meanwhile by another goroutine:
// the blocking kevent call ends when a sweep is due (see doc.go).
func TestClosedWhileBlocked(t *testing.T) {
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		f := newFds(t)
		a, _ := f.pair()
		if err := d.Register(a, 1, core.Read); err != nil {
			t.Fatalf("Register: %v", err)
		}
		closedAt := make(chan time.Time, 1)
		go func() {
			time.Sleep(20 * time.Millisecond)
			unix.Close(a)
			closedAt <- time.Now()
		}()
		delete(f.live, a)
		e, _ := waitFor(t, d, 1, 2*time.Second)
		latency := time.Since(<-closedAt)
		if !e.Closed {
			t.Fatalf("got %v, want Closed", e)
		}
		// The sweep interval doubles while idle, from 10 ms (see doc.go):
		// a close 20 ms in is found by about 40 ms. Generous for shared
		// machines.
		if latency > time.Second {
			t.Errorf("Wait(-1) reported the close %v after it", latency)
		}
		t.Logf("close found after %v", latency)
	})
}

// Deregister of an fd the caller closed first forgets it without error,
// and leaves nothing that breaks the next fd with that number (KQUEUE.md,
// bug 3).
func TestDeregisterAfterClose(t *testing.T) {
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		f := newFds(t)
		a, _ := f.pair()
		if err := d.Register(a, 1, core.Read|core.Write); err != nil {
			t.Fatalf("Register: %v", err)
		}
		f.close(a)
		if err := d.Deregister(a); err != nil {
			t.Fatalf("Deregister after close: %v", err)
		}
		c, e := f.pairAt(a)
		if err := d.Register(c, 2, core.Read|core.Write); err != nil {
			t.Fatalf("Register of the reused number: %v", err)
		}
		write(t, e, "x")
		if ev, _ := waitFor(t, d, 2, time.Second); ev.Ready != core.Read|core.Write {
			t.Fatalf("got %v", ev)
		}
	})
}

// Timeouts are never cut short: libkqueue truncates them to whole
// milliseconds (KQUEUE.md, bug 4), so the driver rounds up.
func TestTimeoutNotTruncated(t *testing.T) {
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		ev := make([]core.Event, 8)
		for _, timeout := range []time.Duration{time.Microsecond, 1500 * time.Microsecond, 2*time.Millisecond + time.Nanosecond} {
			for range 5 {
				start := time.Now()
				if _, err := d.Wait(ev, timeout); err != nil {
					t.Fatalf("Wait: %v", err)
				}
				if took := time.Since(start); took < timeout {
					t.Errorf("Wait(%v) returned after %v", timeout, took)
				}
			}
		}
	})
}

// More ready fds than one kevent call returns (libkqueue caps the list at
// 512, KQUEUE.md bug 10): each Wait fills what it can, and the rest come in
// the next ones.
func TestManyReady(t *testing.T) {
	const ready = 600
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		f := newFds(t)
		for i := range ready {
			a, b := f.pair()
			write(t, b, "x")
			if err := d.Register(a, core.Token(i), core.Read); err != nil {
				t.Fatalf("Register: %v", err)
			}
		}
		ev := make([]core.Event, 2*ready)
		seen := make(map[core.Token]bool)
		for i := 0; i < 4 && len(seen) < ready; i++ {
			n, err := d.Wait(ev, time.Second)
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			for _, e := range ev[:n] {
				seen[e.Token] = true
			}
		}
		if len(seen) != ready {
			t.Fatalf("4 Waits reported %d of %d ready fds", len(seen), ready)
		}
	})
}

// Fd exposes the kqueue until Close.
func TestFd(t *testing.T) {
	d, err := kqueue.New()
	if err != nil {
		t.Fatal(err)
	}
	if d.Fd() < 0 {
		t.Errorf("Fd() = %d", d.Fd())
	}
	if d.Name() != "kqueue" {
		t.Errorf("Name() = %q", d.Name())
	}
	d.Close()
	if d.Fd() != -1 {
		t.Errorf("Fd() after Close = %d, want -1", d.Fd())
	}
}

// Close releases the kqueue, the self-pipe and the dups, and, over
// libkqueue, waits for libkqueue's thread to close what goes with the
// kqueue (epoll, eventfds, the other end of the kqueue's pipe; KQUEUE.md,
// bug 7), so that nothing is left open when it returns.
func TestCloseReleases(t *testing.T) {
	for _, w := range wakers {
		t.Run(w.name, func(t *testing.T) {
			for range 20 {
				f := newFds(t)
				a, _ := f.pair()
				before := openFds(1024)
				d, err := w.new()
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Register(a, 1, core.Read|core.Write); err != nil {
					t.Fatal(err)
				}
				d.Wakeup()
				wait(t, d, 0)
				start := time.Now()
				if err := d.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				took := time.Since(start)
				for fd := range openFds(1024) {
					if !before[fd] {
						t.Fatalf("fd %d, opened by the driver, is still open after Close (which took %v)", fd, took)
					}
				}
				f.close(a)
			}
		})
	}
}
