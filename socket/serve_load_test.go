//go:build unix || windows

package socket

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// eachDriverCounted is eachDriver with testloop.NoLeaks around the loop:
// the descriptors and goroutines of a case are counted before its loop
// is made and after it is closed.
func eachDriverCounted(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			testloop.NoLeaks(t)
			f(t, newLoop(t, name))
		})
	}
}

// hangGuard stops l with an error if it still runs after d: an
// unreferenced timer, which does not keep Run going by itself. It guards
// against a hang, and bounds no speed.
func hangGuard(t *testing.T, l *core.Loop, d time.Duration) {
	id := l.Delay(d, func(core.CallbackID) {
		t.Errorf("the loop still ran after %v", d)
		l.Stop()
	})
	l.Unreference(id)
	t.Cleanup(func() { l.Cancel(id) })
}

// echo is a Handler that writes back what it gets.
func echo(c *Conn, in []byte, err error) int {
	if err == nil {
		c.Write(in)
	}
	return len(in)
}

// A thousand served conns wait on one loop holding no fiber: while they
// all wait, the loop has no more fibers live than it had before they
// came (and the one that guards them). Each then echoes its peer's bytes,
// and ends with its peer's close.
func TestServeThousandIdleConns(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const n = 1000
	raiseFDs(t, 4*n+64) // two per pair; netpoll dups each it watches
	eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
		ours := make([]*Conn, n)
		peers := make([]*Conn, n)
		for i := range n {
			ours[i], peers[i] = pair(t, l)
		}
		fibersBefore := -1
		ended := 0
		fiber(l, func() {
			fibersBefore = l.Stats().FibersLive
			for _, c := range ours {
				if err := c.Serve(func(c *Conn, in []byte, err error) int {
					if err != nil {
						if err != io.EOF {
							t.Errorf("last call: %v, want io.EOF", err)
						}
						ended++
						return 0
					}
					c.Write(in)
					return len(in)
				}); err != nil {
					t.Error(err)
				}
			}
		})
		fiber(l, func() {
			// Every conn waits now; this fiber is the loop's draining one.
			if live := l.Stats().FibersLive; live > fibersBefore+1 {
				t.Errorf("%d fibers live while %d served conns wait, want at most %d (before they came, and the guard)", live, n, fibersBefore+1)
			}
			for i, p := range peers {
				want := strconv.Itoa(i)
				fiber(l, func() {
					buf := make([]byte, 8)
					if _, err := p.Write([]byte(want)); err != nil {
						t.Error(err)
						return
					}
					m, err := p.Read(buf)
					if err != nil || string(buf[:m]) != want {
						t.Errorf("peer %d: echo %q, %v", i, buf[:m], err)
					}
					p.Close()
				})
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if ended != n {
			t.Errorf("%d of %d served conns had their last call", ended, n)
		}
		for i, c := range ours {
			if _, err := c.Read(make([]byte, 1)); !isClosedOp(err, "read") {
				t.Fatalf("conn %d after its last call: Read %v, want it closed", i, err)
			}
		}
	})
}

// A Handler that panics: its conn is closed, the loop goes on serving the
// others, and the panic is reported as a callback's: to the loop's error
// handler, or out of Run.
func TestServeHandlerPanics(t *testing.T) {
	watchdog(t, time.Minute)
	for _, withHandler := range []bool{true, false} {
		t.Run(fmt.Sprintf("error handler %v", withHandler), func(t *testing.T) {
			eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
				bad, badPeer := pair(t, l)
				badOpen := stillOpen(t, bad)
				good, goodPeer := pair(t, l)
				lastCalls := 0
				h := func(c *Conn, in []byte, err error) int {
					if err != nil {
						lastCalls++
						return 0
					}
					if string(in) == "boom" {
						panic("the handler went boom")
					}
					c.Write(in)
					return len(in)
				}
				bad.Serve(h)
				good.Serve(h)
				hangGuard(t, l, 10*time.Second)
				var reported error
				if withHandler {
					l.SetErrorHandler(func(err error) { reported = err })
				}
				fiber(l, func() {
					badPeer.Write([]byte("boom"))
					if n, err := badPeer.Read(make([]byte, 8)); err != io.EOF {
						t.Errorf("the peer of the conn whose Handler panicked read %d, %v; want io.EOF (closed)", n, err)
					}
					// The loop still serves the other conn.
					goodPeer.Write([]byte("ok"))
					buf := make([]byte, 8)
					n, err := goodPeer.Read(buf)
					if err != nil || string(buf[:n]) != "ok" {
						t.Errorf("the other conn's echo: %q, %v", buf[:n], err)
					}
					goodPeer.Close()
				})
				err := l.Run()
				if !withHandler {
					reported = err
					// Run stopped at the panic; the next Run goes on.
					if err := l.Run(); err != nil {
						t.Fatalf("the Run after: %v", err)
					}
				} else if err != nil {
					t.Fatalf("Run: %v", err)
				}
				var ue *core.UncaughtError
				if !errors.As(reported, &ue) || fmt.Sprint(ue.Value) != "the handler went boom" {
					t.Errorf("reported %v, want a *core.UncaughtError with the panic's value", reported)
				}
				if lastCalls != 1 {
					t.Errorf("%d last calls, want 1 (the conn that did not panic)", lastCalls)
				}
				if badOpen() {
					t.Error("the conn whose Handler panicked is open")
				}
			})
		})
	}
}

// A Handler that never returns keeps its own conn waiting, and only it:
// that conn's next bytes start no run, while the loop serves the others;
// the loop's Close unwinds it, and its conn gets its last call and is
// closed.
func TestServeHandlerNeverReturns(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
		stuck, stuckPeer := pair(t, l)
		other, otherPeer := pair(t, l)
		runs := 0
		var suspendErr, lastErr error
		stuck.Serve(func(c *Conn, in []byte, err error) int {
			if err != nil {
				lastErr = err
				return 0
			}
			runs++
			_, suspendErr = l.Suspension().Suspend() // nobody resumes it
			return len(in)
		})
		other.Serve(echo)
		hangGuard(t, l, 10*time.Second)
		fiber(l, func() {
			stuckPeer.Write([]byte("x"))
			fiber(l, func() { // once the stuck run has begun
				stuckPeer.Write([]byte("y"))
				for i := range 3 {
					want := strconv.Itoa(i)
					otherPeer.Write([]byte(want))
					buf := make([]byte, 8)
					n, err := otherPeer.Read(buf)
					if err != nil || string(buf[:n]) != want {
						t.Errorf("the other conn's echo %d: %q, %v", i, buf[:n], err)
					}
				}
				otherPeer.Close()
			})
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if runs != 1 {
			t.Errorf("the stuck conn's Handler ran %d times, want once (its next bytes wait for it)", runs)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if !errors.Is(suspendErr, core.ErrLoopClosed) {
			t.Errorf("the stuck Handler's Suspend returned %v, want core.ErrLoopClosed", suspendErr)
		}
		if !errors.Is(lastErr, net.ErrClosed) || !errors.Is(lastErr, core.ErrLoopClosed) {
			t.Errorf("the stuck conn's last call: %v, want an error matching net.ErrClosed and core.ErrLoopClosed", lastErr)
		}
		if _, err := stuck.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("the stuck conn after the loop's Close: Read %v, want it closed", err)
		}
	})
}

// The loop's Close ends the served conns that wait: each gets its last
// call with an error matching net.ErrClosed and core.ErrLoopClosed, and
// its descriptor is closed (no descriptor outlives the loop), though no
// fiber of theirs was there to unwind.
func TestServeLoopCloseEndsWaitingConns(t *testing.T) {
	eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
		const n = 3
		var lastErrs []error
		conns := make([]*Conn, n)
		open := make([]func() bool, n)
		for i := range conns {
			conns[i], _ = pair(t, l)
			open[i] = stillOpen(t, conns[i])
			if err := conns[i].Serve(func(c *Conn, in []byte, err error) int {
				if err != nil {
					lastErrs = append(lastErrs, err)
				}
				return len(in)
			}); err != nil {
				t.Fatal(err)
			}
		}
		fiber(l, func() { l.Stop() })
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if len(lastErrs) != 0 {
			t.Fatalf("last calls before the loop's Close: %v", lastErrs)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if len(lastErrs) != n {
			t.Fatalf("%d last calls at the loop's Close, want %d", len(lastErrs), n)
		}
		for _, err := range lastErrs {
			if !errors.Is(err, net.ErrClosed) || !errors.Is(err, core.ErrLoopClosed) {
				t.Errorf("last call: %v, want an error matching net.ErrClosed and core.ErrLoopClosed", err)
			}
		}
		for i := range conns {
			if open[i]() {
				t.Errorf("conn %d: its descriptor is open after the loop's Close", i)
			}
		}
	})
}

// Close from another goroutine, while the Handler runs (suspended in a
// Read for more) or while the conn waits: Close returns once the
// descriptor is closed, the Handler's Read fails with net.ErrClosed, and
// its last call says the conn was closed.
func TestServeCloseFromAnotherGoroutine(t *testing.T) {
	watchdog(t, time.Minute)
	for _, running := range []bool{true, false} {
		t.Run(fmt.Sprintf("while the Handler runs %v", running), func(t *testing.T) {
			eachDriverCounted(t, func(t *testing.T, l *core.Loop) {
				a, b := pair(t, l)
				aOpen := stillOpen(t, a)
				runLoop(t, l)
				inRun := make(chan struct{})
				var readErr error
				last := make(chan error, 1)
				h := func(c *Conn, in []byte, err error) int {
					if err != nil {
						last <- err
						return 0
					}
					close(inRun)
					_, readErr = c.Read(make([]byte, 8)) // the peer sends no more
					return len(in)
				}
				var err error
				onLoop(t, l, func() { err = a.Serve(h) })
				if err != nil {
					t.Fatal(err)
				}
				if running {
					onLoop(t, l, func() { b.Write([]byte("x")) })
					<-inRun
					// The run's Read waits once a post made after it has run.
					onLoop(t, l, func() {})
				}
				if err := a.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				if aOpen() {
					t.Error("Close returned with the descriptor open")
				}
				var lastErr error
				select {
				case lastErr = <-last:
				case <-time.After(10 * time.Second): // a hang guard
					t.Fatal("no last call in 10 s")
				}
				if running && !isClosedOp(readErr, "read") {
					t.Errorf("the Handler's Read: %v, want it closed", readErr)
				}
				if !isClosedOp(lastErr, "read") {
					t.Errorf("the last call: %v, want the conn closed", lastErr)
				}
			})
		})
	}
}

// wrappedDriver makes driver name for a test that wraps it in one of its
// own, and checks that the test leaks no goroutine.
func wrappedDriver(t *testing.T, name string) driver.Driver {
	testloop.NoLeaks(t)
	d, err := eventloop.NewDriver(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// blockedDriver wraps a driver to tell when the loop is about to block in
// it (a wait that is not a poll; the loop's sweep for closed descriptors
// bounds it to a second): stalled decides whether that is the moment the
// test waits for, and then the loop is stopped instead of blocked.
type blockedDriver struct {
	driver.Driver
	l       *core.Loop
	stalled func() bool
}

func (d *blockedDriver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if timeout != 0 && d.stalled() {
		d.l.Stop()
		return 0, nil
	}
	return d.Driver.Wait(events, timeout)
}

// A peer that sends 64 MiB and never reads what the Handler echoes: the
// Handler's Write suspends once the answers fill the socket, the conn is
// not read meanwhile, and so the bytes wait in the peer and the kernel,
// not in the server's memory. The loop ends up blocked with the peer and
// the Handler both suspended in a Write, the peer short of its 64 MiB,
// and the heap grown by far less than them.
func TestServeWritesHoldBackReads(t *testing.T) {
	watchdog(t, time.Minute)
	const total = 64 << 20
	const maxGrowth = 8 << 20
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			inner := wrappedDriver(t, name)
			var peerWrites, handlerWrites bool
			read, sent := 0, 0
			d := &blockedDriver{Driver: inner, stalled: func() bool {
				return handlerWrites && (peerWrites || sent == total)
			}}
			l := core.New(d)
			d.l = l
			defer l.Close()
			a, b := pair(t, l)
			payload := bytes.Repeat([]byte("0123456789abcdef"), total/16)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			a.Serve(func(c *Conn, in []byte, err error) int {
				read += len(in)
				if err == nil {
					handlerWrites = true
					c.Write(in)
					handlerWrites = false
				}
				return len(in)
			})
			fiber(l, func() {
				for sent < total {
					chunk := payload[sent:min(sent+64<<10, total)]
					peerWrites = true
					n, err := b.Write(chunk)
					peerWrites = false
					sent += n
					if err != nil {
						return
					}
				}
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			growth := int64(after.HeapInuse) - int64(before.HeapInuse)
			t.Logf("the peer sent %d bytes, the Handler read %d; the heap grew by %d bytes", sent, read, growth)
			if sent >= total {
				t.Errorf("the peer sent all %d bytes: the server read on while its answers could not leave", total)
			}
			if sent < total && (!peerWrites || !handlerWrites) {
				t.Errorf("Run returned with the peer writing %v and the Handler writing %v, want both blocked", peerWrites, handlerWrites)
			}
			if growth > maxGrowth {
				t.Errorf("the heap grew by %d bytes, want at most %d", growth, maxGrowth)
			}
		})
	}
}

// A served conn's cycle, from waiting to a run (a read, the Handler, its
// echo) and back to waiting, allocates nothing; neither does one whose
// Handler leaves bytes for the next run, once its conn has a buffer for
// them.
func TestServeAllocatesNothing(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	watchdog(t, time.Minute)
	const rounds, warm = 1000, 10
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, leave := range []int{0, 1} {
			a, b := pair(t, l)
			a.Serve(func(c *Conn, in []byte, err error) int {
				if err != nil || len(in) <= leave {
					return 0
				}
				c.Write(in[:1])
				return len(in) - leave
			})
			var before, after runtime.MemStats
			fiber(l, func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				buf := []byte("xy")
				for i := range rounds {
					if i == warm {
						runtime.ReadMemStats(&before)
					}
					if _, err := b.Write(buf); err != nil {
						t.Error(err)
						return
					}
					if _, err := b.Read(buf[:1]); err != nil {
						t.Error(err)
						return
					}
				}
				runtime.ReadMemStats(&after)
				b.Close()
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			perRound := float64(after.Mallocs-before.Mallocs) / (rounds - warm)
			t.Logf("leaving %d bytes a run: %.3f allocations per round", leave, perRound)
			if !noAllocsPerRound(perRound) {
				t.Errorf("leaving %d bytes a run: %.3f allocations per round, want 0", leave, perRound)
			}
		}
	})
}
