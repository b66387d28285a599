//go:build unix || windows

package socket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
)

// fiber runs fn in a fiber of l (a Defer), in the next tick.
func fiber(l *core.Loop, fn func()) { l.Defer(func(core.CallbackID) { fn() }) }

// isTimeout checks what net.Conn promises of a deadline's error.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout()
}

// isClosedOp checks an error of a call on a closed conn: a *net.OpError
// for op that wraps net.ErrClosed.
func isClosedOp(err error, op string) bool {
	var oe *net.OpError
	return errors.Is(err, net.ErrClosed) && errors.As(err, &oe) && oe.Op == op
}

// goroutineWaits returns once a goroutine (not a fiber) waits on the loop
// in a call of this package, and the loop has queued its wait: its stack
// shows core.FD's goroutine wait in RunUntil (so its wait has been
// posted), and then a post of ours, made after it, has run (posts run in
// order). What the caller does next (Close, a write, a deadline) finds the
// call waiting, however loaded the machine: no sleep guesses when that is.
// The loop must be run meanwhile, by a goroutine of the test (runLoop) or
// by the waiting call itself (RunUntil runs it when nobody does). A
// minute without such a goroutine is an error (a hang guard); the caller
// must be the only one making such waits.
func goroutineWaits(l *core.Loop) error {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		for n == len(buf) {
			buf = make([]byte, 2*len(buf))
			n = runtime.Stack(buf, true)
		}
		if waitsOnLoop(string(buf[:n])) {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("no goroutine waits on the loop")
		}
	}
	ran := make(chan struct{})
	if err := l.Post(func() { close(ran) }); err != nil {
		return err
	}
	<-ran
	return nil
}

// waitsOnLoop: a goroutine's stack, in a dump of all of them, shows a
// wait of core.FD's from another goroutine, past its post (in RunUntil).
func waitsOnLoop(stacks string) bool {
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "core.(*FD).waitGoroutine(") && strings.Contains(g, "core.(*Loop).RunUntil(") {
			return true
		}
	}
	return false
}

// A thousand fibers, each blocked in Read on a conn of its own, are all
// served by one loop once their peers write.
func TestThousandFibersBlockedInRead(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const n = 1000
		ours := make([]*Conn, n)
		peers := make([]*Conn, n)
		for i := range n {
			ours[i], peers[i] = pair(t, l)
		}
		served := 0
		for i := range n {
			fiber(l, func() {
				buf := make([]byte, 8)
				m, err := ours[i].Read(buf)
				if err != nil || string(buf[:m]) != strconv.Itoa(i) {
					t.Errorf("fiber %d read %q, %v", i, buf[:m], err)
				}
				served++
			})
		}
		// Defers run in order: by now every reader has suspended.
		fiber(l, func() {
			if live := l.Stats().FibersLive; live < n {
				t.Errorf("%d fibers live while the readers wait, want at least %d", live, n)
			}
			for i := range n {
				if _, err := peers[i].Write([]byte(strconv.Itoa(i))); err != nil {
					t.Error(err)
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if served != n {
			t.Fatalf("%d of %d readers served", served, n)
		}
		fiber(l, func() {
			for i := range n {
				ours[i].Close()
				peers[i].Close()
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// One fiber reads a conn while another writes it; a third fiber's Close
// wakes the blocked reader with an error wrapping net.ErrClosed.
func TestCloseFromAnotherFiberWakesReader(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer b.Close()
		const size = 1 << 20 // more than the socket buffers: the writer suspends
		var got []byte
		var readErr error
		fiber(l, func() { // reader of a
			buf := make([]byte, 4096)
			for {
				n, err := a.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					readErr = err
					return
				}
			}
		})
		fiber(l, func() { // writer of a
			if n, err := a.Write(bytes.Repeat([]byte{'x'}, size)); n != size || err != nil {
				t.Errorf("Write: %d, %v", n, err)
			}
		})
		fiber(l, func() { // the peer: takes it all, answers
			if _, err := io.ReadFull(b, make([]byte, size)); err != nil {
				t.Error(err)
			}
			if _, err := b.Write([]byte("pong")); err != nil {
				t.Error(err)
			}
		})
		// The closer, once the reader has the answer and waits again (a
		// fixed delay would guess how long a mebibyte takes; under Wine
		// and the race detector it can take longer than 50 ms).
		l.Repeat(time.Millisecond, func(id core.CallbackID) {
			if len(got) < len("pong") {
				return
			}
			l.Cancel(id)
			if string(got) != "pong" {
				t.Errorf("reader got %q before Close, want pong", got)
			}
			if err := a.Close(); err != nil {
				t.Error(err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if !isClosedOp(readErr, "read") {
			t.Fatalf("blocked Read after Close: %v, want a read *net.OpError wrapping net.ErrClosed", readErr)
		}
	})
}

// Deadlines: an expired one fails at once, a future one fires, one moved
// while a call waits takes effect at once (from a fiber and from another
// goroutine), and a write deadline stops a Write with the count written.
func TestDeadlines(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer a.Close()
		defer b.Close()
		t.Run("Expired", func(t *testing.T) {
			fiber(l, func() {
				b.Write([]byte("data waiting")) // net fails a past deadline even with data in
				a.SetReadDeadline(time.Now().Add(-time.Second))
				// At once: the fiber does not wait (a wait would suspend
				// it until a later tick), whatever the clock says.
				ticks := l.Stats().Ticks
				if n, err := a.Read(make([]byte, 16)); n != 0 || !isTimeout(err) {
					t.Errorf("Read past deadline: %d, %v", n, err)
				}
				if n, err := a.Read(nil); n != 0 || err != nil {
					t.Errorf("empty Read past deadline: %d, %v; want 0, nil", n, err)
				}
				if n := l.Stats().Ticks - ticks; n != 0 {
					t.Errorf("an expired deadline waited: %d ticks", n)
				}
				a.SetReadDeadline(time.Time{})
				buf := make([]byte, 16)
				if n, err := a.Read(buf); string(buf[:n]) != "data waiting" || err != nil {
					t.Errorf("Read after clearing: %q, %v", buf[:n], err)
				}
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("Future", func(t *testing.T) {
			fiber(l, func() {
				start := time.Now()
				a.SetReadDeadline(start.Add(50 * time.Millisecond))
				_, err := a.Read(make([]byte, 16))
				// Never early; how late is the machine's business (the
				// test's watchdog is the hang guard).
				if d := time.Since(start); !isTimeout(err) || d < 50*time.Millisecond {
					t.Errorf("Read with a 50ms deadline: %v after %v", err, d)
				}
				a.SetReadDeadline(time.Time{})
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("MovedByFiber", func(t *testing.T) {
			fiber(l, func() {
				start := time.Now()
				a.SetReadDeadline(start.Add(100 * time.Millisecond))
				// The moves are Defers queued just before each Read: they
				// run in the next tick, once the Read waits, whatever the
				// machine's load.
				l.Defer(func(core.CallbackID) { a.SetReadDeadline(start.Add(250 * time.Millisecond)) })
				_, err := a.Read(make([]byte, 16))
				if d := time.Since(start); !isTimeout(err) || d < 250*time.Millisecond {
					t.Errorf("deadline moved later: %v after %v, want a timeout after 250ms", err, d)
				}
				a.SetReadDeadline(time.Now().Add(time.Hour))
				l.Defer(func(core.CallbackID) { a.SetReadDeadline(time.Now().Add(-time.Second)) })
				if _, err = a.Read(make([]byte, 16)); !isTimeout(err) {
					t.Errorf("deadline moved to the past: %v, want a timeout (the watchdog is the bound)", err)
				}
				a.SetReadDeadline(time.Time{})
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("MovedByGoroutine", func(t *testing.T) {
			res := make(chan error, 1)
			waiting := make(chan struct{})
			fiber(l, func() {
				a.SetReadDeadline(time.Now().Add(time.Hour))
				// The next tick's Defer: by then this fiber waits in Read.
				l.Defer(func(core.CallbackID) { close(waiting) })
				_, err := a.Read(make([]byte, 16))
				res <- err
			})
			stop := runLoop(t, l)
			<-waiting
			if err := a.SetReadDeadline(time.Now()); err != nil {
				t.Fatal(err)
			}
			// Woken by the move (the old deadline is an hour away); the
			// 10 s are a hang guard, not a bound on speed.
			select {
			case err := <-res:
				if !isTimeout(err) {
					t.Errorf("Read: %v, want a timeout", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the reader was not woken")
			}
			stop()
			a.SetReadDeadline(time.Time{})
		})
		t.Run("Write", func(t *testing.T) {
			fiber(l, func() {
				big := make([]byte, 16<<20)
				a.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
				n, err := a.Write(big)
				if !isTimeout(err) || n <= 0 || n >= len(big) {
					t.Errorf("Write past its deadline: %d of %d, %v", n, len(big), err)
				}
				a.SetWriteDeadline(time.Time{})
				// Drain what was written, so the next cases start clean.
				b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				buf := make([]byte, 1<<20)
				for {
					if _, err := b.Read(buf); err != nil {
						break
					}
				}
				b.SetReadDeadline(time.Time{})
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// Read, Write and the rest after Close fail with net.ErrClosed; a second
// Close too; an empty Read returns at once.
func TestCallsAfterClose(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer b.Close()
		fiber(l, func() {
			if n, err := a.Read(nil); n != 0 || err != nil {
				t.Errorf("empty Read: %d, %v", n, err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Read(make([]byte, 1)); !isClosedOp(err, "read") {
				t.Errorf("Read after Close: %v", err)
			}
			if _, err := a.Write([]byte("x")); !isClosedOp(err, "write") {
				t.Errorf("Write after Close: %v", err)
			}
			if err := a.Close(); !isClosedOp(err, "close") {
				t.Errorf("second Close: %v", err)
			}
			if err := a.SetDeadline(time.Now()); !errors.Is(err, net.ErrClosed) {
				t.Errorf("SetDeadline after Close: %v", err)
			}
			if n, err := b.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("peer's Read after Close: %d, %v; want 0, EOF", n, err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		// From main, between runs.
		if _, err := a.Read(make([]byte, 1)); !isClosedOp(err, "read") {
			t.Errorf("Read after Close from main: %v", err)
		}
	})
}

// A peer that resets the connection while a fiber writes: the Write fails
// with ECONNRESET or EPIPE in a *net.OpError, and nothing panics.
func TestPeerResetMidWrite(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		var werr error
		fiber(l, func() {
			c, err := Dial(l, "tcp", ln.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			buf := make([]byte, 1<<20)
			for werr == nil {
				_, werr = c.Write(buf)
			}
		})
		fiber(l, func() {
			c, err := ln.AcceptConn()
			if err != nil {
				t.Error(err)
				return
			}
			// Read a little, then reset: SO_LINGER 0 makes close send RST.
			io.ReadFull(c, make([]byte, 64<<10))
			rc, _ := c.SyscallConn()
			rc.Control(func(fd uintptr) {
				if err := setLingerZero(fd); err != nil {
					t.Error(err)
				}
			})
			c.Close()
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		var oe *net.OpError
		var se *os.SyscallError
		if !errors.As(werr, &oe) || oe.Op != "write" || !errors.As(werr, &se) ||
			!(errors.Is(werr, syscall.ECONNRESET) || errors.Is(werr, syscall.EPIPE)) {
			t.Fatalf("Write to a reset peer: %#v (%v), want a write *net.OpError wrapping ECONNRESET or EPIPE", werr, werr)
		}
	})
}

// A listener closed while a fiber (or a goroutine) waits in Accept wakes
// it with net.ErrClosed.
func TestListenerClosedWhileAcceptWaits(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		t.Run("Fiber", func(t *testing.T) {
			ln, err := Listen(l, "tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var aerr error
			fiber(l, func() {
				// The Defer runs in the next tick: by then Accept waits
				// (a fiber's wait suspends it within its tick).
				l.Defer(func(core.CallbackID) { ln.Close() })
				_, aerr = ln.Accept()
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if !isClosedOp(aerr, "accept") {
				t.Fatalf("Accept: %v", aerr)
			}
		})
		t.Run("Goroutine", func(t *testing.T) {
			ln, err := Listen(l, "tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			runLoop(t, l)
			res := make(chan error, 1)
			go func() {
				_, err := ln.Accept()
				res <- err
			}()
			if err := goroutineWaits(l); err != nil {
				t.Fatal(err)
			}
			ln.Close()
			if err := <-res; !isClosedOp(err, "accept") {
				t.Fatalf("Accept: %v", err)
			}
		})
	})
}

// Listening on a busy port fails with EADDRINUSE, naming the address.
func TestListenBusyPort(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addr := ln.Addr().String()
		_, err = Listen(l, "tcp", addr)
		var oe *net.OpError
		if !errors.Is(err, syscall.EADDRINUSE) || !errors.As(err, &oe) || oe.Op != "listen" {
			t.Fatalf("second Listen on %s: %v, want a listen *net.OpError wrapping EADDRINUSE", addr, err)
		}
		if _, ok := oe.Addr.(*net.TCPAddr); !ok {
			t.Errorf("second Listen on %s: its error's Addr is a %T, want a *net.TCPAddr, as net's", addr, oe.Addr)
		}
		if want := "listen tcp " + addr + ": bind: " + errAddrInUse.Error(); err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		// ReusePort: both may listen (the kernel spreads connections);
		// where the system has no SO_REUSEPORT, an error names it.
		lc := ListenConfig{ReusePort: true}
		r1, err := lc.Listen(t.Context(), l, "tcp", "127.0.0.1:0")
		if !haveReusePort {
			if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &oe) || oe.Op != "listen" || !strings.Contains(err.Error(), "SO_REUSEPORT") {
				t.Fatalf("ReusePort listener without SO_REUSEPORT: %v, want a listen *net.OpError naming SO_REUSEPORT and matching errors.ErrUnsupported", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer r1.Close()
		r2, err := lc.Listen(t.Context(), l, "tcp", r1.Addr().String())
		if err != nil {
			t.Fatalf("second ReusePort listener: %v", err)
		}
		r2.Close()
	})
}

// Each fd has at most one watcher per direction for its whole life,
// however many times its calls wait; the loop holds nothing for it after
// Close.
func TestOneWatcherPerDirection(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		watchers := func() (n int) {
			for _, id := range l.Identifiers() {
				if typ, _ := l.Type(id); typ == core.TypeReadable || typ == core.TypeWritable {
					n++
				}
			}
			return n
		}
		fiber(l, func() {
			buf := make([]byte, 1)
			for range 100 {
				if _, err := a.Read(buf); err != nil {
					t.Error(err)
					return
				}
			}
		})
		writes := 0
		l.Repeat(time.Millisecond, func(id core.CallbackID) {
			if writes++; writes == 100 {
				l.Cancel(id)
			}
			b.Write([]byte{1})
			if n := watchers(); n > 1 {
				t.Errorf("%d fd watchers while one conn reads", n)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		fiber(l, func() { a.Close(); b.Close() })
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if n := watchers(); n != 0 {
			t.Fatalf("%d fd watchers after Close", n)
		}
	})
}

// Two fibers read one conn: each gets its message (the second waits for
// the first's turn, as concurrent net Reads do).
func TestTwoFibersReadOneConn(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer a.Close()
		defer b.Close()
		got := map[string]bool{}
		for range 2 {
			fiber(l, func() {
				buf := make([]byte, 1)
				n, err := a.Read(buf)
				if err != nil {
					t.Error(err)
				}
				got[string(buf[:n])] = true
			})
		}
		l.Delay(10*time.Millisecond, func(core.CallbackID) { b.Write([]byte("x")) })
		l.Delay(20*time.Millisecond, func(core.CallbackID) { b.Write([]byte("y")) })
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if !got["x"] || !got["y"] {
			t.Fatalf("got %v, want x and y", got)
		}
	})
}

// Close of the loop while fibers wait in Read ends their waits (an error
// wrapping net.ErrClosed and core.ErrLoopClosed) and closes their conns:
// no descriptor is left (where the system can count them: Unix), and
// none of theirs is open. A goroutine waiting on the loop sees it too.
func TestLoopCloseEndsWaits(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			before, counted := leakcheck.Count()
			l := newLoop(t, name)
			const n = 10
			errs := make([]error, n)
			var peers []*Conn
			var waiting []int // the descriptors of the waiting conns
			for i := range n {
				a, b := pair(t, l)
				peers = append(peers, b)
				waiting = append(waiting, a.fd.pd.Sysfd())
				fiber(l, func() { _, errs[i] = a.Read(make([]byte, 1)) })
			}
			l.Delay(20*time.Millisecond, func(core.CallbackID) { l.Stop() })
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			// A goroutine waits too (the loop runs on another goroutine).
			ga, gb := pair(t, l)
			peers = append(peers, gb)
			waiting = append(waiting, ga.fd.pd.Sysfd())
			gres := make(chan error, 1)
			runner := make(chan error, 1)
			running := make(chan struct{})
			l.Defer(func(core.CallbackID) { close(running) })
			go func() { runner <- l.Run() }()
			<-running // the loop's goroutine runs it before others block on it
			go func() {
				_, err := ga.Read(make([]byte, 1))
				gres <- err
			}()
			if err := goroutineWaits(l); err != nil {
				t.Fatal(err)
			}
			if err := l.Post(l.Stop); err != nil {
				t.Fatal(err)
			}
			if err := <-runner; err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			for i, err := range errs {
				if !isClosedOp(err, "read") || !errors.Is(err, core.ErrLoopClosed) {
					t.Errorf("fiber %d: Read ended with %v, want net.ErrClosed and core.ErrLoopClosed", i, err)
				}
			}
			if err := <-gres; !isClosedOp(err, "read") || !errors.Is(err, core.ErrLoopClosed) {
				t.Errorf("goroutine: Read ended with %v", err)
			}
			for _, fd := range waiting {
				if fdOpen(fd) {
					t.Errorf("descriptor %d of a conn waiting when the loop closed is open", fd)
				}
			}
			for _, c := range peers {
				if err := c.Close(); err != nil {
					t.Errorf("Close of an idle conn after the loop's Close: %v", err)
				}
			}
			if _, err := peers[0].Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				t.Errorf("Read on a conn of a closed loop: %v", err)
			}
			if after, _ := leakcheck.Count(); counted && after != before {
				t.Fatalf("%d descriptors open before the loop, %d after its Close", before, after)
			}
		})
	}
}

// A new conn of a closed loop fails at once, with net.ErrClosed.
func TestConnOfClosedLoop(t *testing.T) {
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			l := newLoop(t, name)
			a, b := pair(t, l)
			l.Close()
			b.Write([]byte("x")) // even with data to read
			if _, err := a.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) || !errors.Is(err, core.ErrLoopClosed) {
				t.Errorf("Read: %v", err)
			}
			if _, err := Dial(l, "tcp", "127.0.0.1:1"); err == nil {
				t.Error("Dial on a closed loop: no error")
			}
			a.Close()
			b.Close()
		})
	}
}

// The main path: with the loop not running, a call from the test's
// goroutine runs the loop itself until its call is done (timers of the
// loop run meanwhile), and Run is left to the caller afterwards.
func TestMainRunsTheLoopUntilDone(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		// A referenced timer far away: the calls must not wait for it.
		far := l.Delay(time.Hour, func(core.CallbackID) {})
		defer l.Cancel(far)
		fiber(l, func() {
			c, err := ln.AcceptConn()
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			buf := make([]byte, 5)
			io.ReadFull(c, buf)
			c.Write(append(buf, '!'))
		})
		c, err := Dial(l, "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c)
		if string(got) != "hello!" || err != nil {
			t.Fatalf("main read %q, %v", got, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v", d)
		}
	})
}

// A fiber dials a name and a refused port; the loop goes on while the
// dial waits (a callback queued before the Dial runs before it returns).
func TestDialFromFiber(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		fiber(l, func() {
			// Queued before the Dial: it runs before the Dial returns only
			// if the fiber suspends (resolving, connecting) instead of
			// blocking the loop.
			ranMeanwhile := false
			l.Defer(func(core.CallbackID) { ranMeanwhile = true })
			c, err := Dial(l, "tcp4", net.JoinHostPort("localhost", strconv.Itoa(port)))
			if !ranMeanwhile {
				t.Errorf("the loop did not run while the fiber dialed localhost")
			}
			if err != nil {
				t.Errorf("Dial localhost: %v", err)
				return
			}
			if ra := c.RemoteAddr().(*net.TCPAddr); ra.Port != port || !ra.IP.IsLoopback() {
				t.Errorf("RemoteAddr %v", ra)
			}
			c.Close()
			ln.Close()
			_, err = Dial(l, "tcp4", fmt.Sprintf("127.0.0.1:%d", port))
			var oe *net.OpError
			if !errors.As(err, &oe) || oe.Op != "dial" ||
				!errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("Dial of a closed port: %v, want ECONNREFUSED", err)
			} else if _, ok := oe.Addr.(*net.TCPAddr); !ok {
				t.Errorf("Dial of a closed port: its error's Addr is a %T, want a *net.TCPAddr, as net's", oe.Addr)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDialTriesEachAddress: a name with several addresses is dialed at
// each in turn until one connects, as net's: the first refuses, the
// second listens.
func TestDialTriesEachAddress(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		refused := netip.MustParseAddr("127.0.0.2") // the listener is on 127.0.0.1 alone
		var asked []string
		lookupNetIP = func(_ context.Context, network, _ string) ([]netip.Addr, error) {
			asked = append(asked, network)
			return []netip.Addr{refused, netip.MustParseAddr("127.0.0.1")}, nil
		}
		defer func() { lookupNetIP = net.DefaultResolver.LookupNetIP }()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		c, err := Dial(l, "tcp4", net.JoinHostPort("two.example", port))
		if err != nil {
			t.Fatalf("Dial of a name whose second address listens: %v", err)
		}
		defer c.Close()
		if ra := c.RemoteAddr().(*net.TCPAddr); !ra.IP.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("connected to %v", ra)
		}
		// The resolver is asked for the network's family alone, as net's.
		if c, err := Dial(l, "tcp", net.JoinHostPort("two.example", port)); err == nil {
			c.Close()
		}
		if want := []string{"ip4", "ip"}; !slices.Equal(asked, want) {
			t.Errorf("the resolver was asked for %q, want %q", asked, want)
		}
	})
}

// A port given by its service name is the service's, as net's: a dial to
// "http" names port 80 (refused here, unless something listens there).
func TestDialServiceName(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		c, err := Dial(l, "tcp4", "127.0.0.254:http")
		if err == nil {
			c.Close()
			return
		}
		if !strings.Contains(err.Error(), "127.0.0.254:80") {
			t.Errorf("Dial of port http: %v, want a dial of port 80", err)
		}
	})
}
