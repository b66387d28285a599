//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"golang.org/x/sys/unix"
)

// READ and WRITE on one fd: libkqueue 2.3.1 fails the second EV_ADD with
// EFAULT (KQUEUE.md, bug 1), so the driver puts WRITE on a dup and maps its
// events back. Both orders of adding, one Event per fd per Wait, and no dup
// left behind.
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
			{core.Write, 1},             // READ leaves the fd, WRITE stays on its dup
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
		// WRITE first, then READ joins it.
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

// An fd closed while registered and its number taken by a new file, then,
// as the core does, Deregister and Register of the new file: libkqueue
// keeps a stale knote that breaks the next fd with that number unless
// Deregister deletes it (KQUEUE.md, bug 3); a kernel drops the knotes
// silently. A Wait in between may report the old registration Closed
// (over libkqueue the dup that carries WRITE keeps the old file in epoll),
// never Ready.
func TestCloseAndReuse(t *testing.T) {
	for _, in := range []core.Interest{core.Read, core.Write, core.Read | core.Write, 0} {
		for _, waitFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/waitFirst=%v", in, waitFirst), func(t *testing.T) {
				eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
					f := newFds(t)
					a, b := f.pair()
					write(t, b, "x")
					if err := d.Register(a, 1, in); err != nil {
						t.Fatalf("Register: %v", err)
					}
					f.close(a)
					c, e := f.pairAt(a)
					closed := 0
					check := func(evs []core.Event) {
						t.Helper()
						for _, ev := range evs {
							if ev.Token == 1 && !ev.Closed {
								t.Fatalf("the closed registration reported Ready %v", ev.Ready)
							}
							if ev.Token == 1 {
								closed++
							}
						}
					}
					if waitFirst {
						for range 3 {
							check(wait(t, d, 10*time.Millisecond))
						}
					}
					if err := d.Deregister(a); err != nil && !(closed == 1 && errors.Is(err, fs.ErrNotExist)) {
						t.Fatalf("Deregister of the reused number %d: %v (after %d Closed events)", a, err, closed)
					}
					if d.Dups() != 0 {
						t.Fatalf("%d dups left after Deregister", d.Dups())
					}
					if err := d.Register(c, 2, core.Read); err != nil {
						t.Fatalf("Register of the reused number %d: %v", c, err)
					}
					write(t, e, "y")
					ev, _ := waitFor(t, d, 2, time.Second)
					if ev.Ready != core.Read || ev.Closed {
						t.Fatalf("the new file reported %v, want Read", ev)
					}
					check(wait(t, d, 0))
					if closed > 1 {
						t.Fatalf("the old registration was reported Closed %d times", closed)
					}
				})
			})
		}
	}
}

// Modify of an fd closed behind the driver's back: the kernel answers
// EBADF, which the driver.Driver contract turns into one Closed event and
// a forgotten fd, whether Modify adds a filter (over libkqueue, on a dup of
// the closed fd) or deletes one.
func TestModifyOfClosedFdReportsClosed(t *testing.T) {
	for _, to := range []core.Interest{core.Read | core.Write, 0} {
		t.Run(to.String(), func(t *testing.T) {
			eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
				f := newFds(t)
				a, _ := f.pair()
				if err := d.Register(a, 1, core.Read); err != nil {
					t.Fatalf("Register: %v", err)
				}
				f.close(a)
				if err := d.Modify(a, 2, to); err != nil {
					t.Fatalf("Modify of closed fd %d: %v, want nil and a Closed event", a, err)
				}
				if e, _ := waitFor(t, d, 2, time.Second); !e.Closed {
					t.Fatalf("got %v, want Closed", e)
				}
				if evs := wait(t, d, 20*time.Millisecond); len(evs) != 0 {
					t.Fatalf("Wait after the Closed event reported %v", evs)
				}
				if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Deregister after Closed: %v, want fs.ErrNotExist", err)
				}
				if d.Dups() != 0 {
					t.Fatalf("%d dups left", d.Dups())
				}
			})
		})
	}
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

// A refused connect reports its error with the event (Event.Errno):
// libkqueue reads SO_ERROR to fill in fflags, which clears it on Linux, and
// READ and WRITE may each read it, so only the first has it.
func TestRefusedConnectReportsErrno(t *testing.T) {
	for _, in := range []core.Interest{core.Write, core.Read | core.Write} {
		t.Run(in.String(), func(t *testing.T) {
			eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
				s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(s)
				if err := unix.SetNonblock(s, true); err != nil {
					t.Fatal(err)
				}
				err = unix.Connect(s, &unix.SockaddrInet4{Port: closedPort(t), Addr: [4]byte{127, 0, 0, 1}})
				if err == unix.ECONNREFUSED {
					t.Skip("connect was refused at once: no event to look at")
				}
				if err != unix.EINPROGRESS {
					t.Fatalf("connect: %v, want EINPROGRESS", err)
				}
				if err := d.Register(s, 1, in); err != nil {
					t.Fatal(err)
				}
				defer d.Deregister(s) // before the close (KQUEUE.md, bug 3)
				ev, _ := waitFor(t, d, 1, 5*time.Second)
				if ev.Ready != in || ev.Errno != unix.ECONNREFUSED {
					t.Fatalf("Wait reported %+v, want Ready %v and Errno ECONNREFUSED", ev, in)
				}
			})
		})
	}
}

// closedPort returns a local TCP port that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(s)
	if err := unix.Bind(s, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(s)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*unix.SockaddrInet4).Port
}
