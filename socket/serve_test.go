//go:build unix || windows

package socket

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/driver"
)

// turns lets a writer fiber and a served conn's Handler take turns: the
// writer sends a piece and waits (wait) until a run has seen it (done), so
// that each piece reaches the Handler in a run of its own.
type turns struct {
	l       *core.Loop
	waiting *core.Suspension
}

func (tu *turns) wait() {
	tu.waiting = tu.l.Suspension()
	tu.waiting.Suspend()
}

func (tu *turns) done() {
	if s := tu.waiting; s != nil {
		tu.waiting = nil
		s.Resume(nil)
	}
}

// Each run of a Handler gets the bytes it left last time followed by the
// new ones, in order; its last call gets the end of the stream with what
// it left; the conn is closed after it.
func TestServeKeepsWhatTheHandlerLeft(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		tu := &turns{l: l}
		var runs, lines []string
		var last string
		var lastErr error
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			if err != nil {
				last, lastErr = string(in), err
				return 0
			}
			runs = append(runs, string(in))
			defer tu.done()
			n := 0
			for {
				i := bytes.IndexByte(in[n:], '\n')
				if i < 0 {
					return n
				}
				lines = append(lines, string(in[n:n+i]))
				n += i + 1
			}
		}); err != nil {
			t.Fatal(err)
		}
		fiber(l, func() {
			for _, piece := range []string{"ab", "c\nde", "f\ng", "\n", "tail"} {
				if _, err := b.Write([]byte(piece)); err != nil {
					t.Error(err)
					return
				}
				tu.wait()
			}
			b.CloseWrite()
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"ab", "abc\nde", "def\ng", "g\n", "tail"}; !slices.Equal(runs, want) {
			t.Errorf("runs got %q, want %q", runs, want)
		}
		if want := []string{"abc", "def", "g"}; !slices.Equal(lines, want) {
			t.Errorf("lines %q, want %q", lines, want)
		}
		if last != "tail" || lastErr != io.EOF {
			t.Errorf("last call: %q, %v; want %q, io.EOF", last, lastErr, "tail")
		}
		if _, err := a.Read(make([]byte, 1)); !isClosedOp(err, "read") {
			t.Errorf("Read after the last call: %v, want the conn closed", err)
		}
	})
}

// A served conn that waits for bytes keeps Run going, as a Read that
// waits does: Run ends here only once the Handler has had the byte sent
// after Run began, and closed the conn.
func TestServeKeepsRunGoing(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		got := ""
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			if err == nil {
				got += string(in)
				c.Close()
			}
			return len(in)
		}); err != nil {
			t.Fatal(err)
		}
		fiber(l, func() {
			fiber(l, func() { b.Write([]byte("x")) }) // a tick later
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if got != "x" {
			t.Errorf("Run returned before the Handler got %q (it got %q)", "x", got)
		}
	})
}

// StopServing hands the conn back: the Handler is not called again, and
// the next Reads return what it left first, however small their buffers,
// then the bytes that follow. A Read from a run returns the bytes after
// its in.
func TestServeStopServing(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		a.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
		tu := &turns{l: l}
		var calls []string
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			defer tu.done()
			calls = append(calls, fmt.Sprintf("%q %v", in, err))
			more := make([]byte, 5)
			n, rerr := io.ReadFull(c, more)
			calls = append(calls, fmt.Sprintf("read %q %v", more[:n], rerr))
			if !c.StopServing() {
				t.Error("StopServing from the Handler: false, want true")
			}
			if c.StopServing() {
				t.Error("a second StopServing: true, want false")
			}
			return 2
		}); err != nil {
			t.Fatal(err)
		}
		fiber(l, func() {
			b.Write([]byte("hello"))
			fiber(l, func() { b.Write([]byte("world")) })
		})
		var read []string
		fiber(l, func() {
			tu.wait() // until the run has returned
			b.Write([]byte("after"))
			buf := make([]byte, 2) // what was left comes in pieces, then the rest
			for range 3 {
				n, err := a.Read(buf)
				if err != nil {
					t.Error(err)
					return
				}
				read = append(read, string(buf[:n]))
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if want := []string{`"hello" <nil>`, `read "world" <nil>`}; !slices.Equal(calls, want) {
			t.Errorf("the Handler's calls: %q, want %q", calls, want)
		}
		if want := []string{"ll", "o", "af"}; !slices.Equal(read, want) {
			t.Errorf("Reads after StopServing: %q, want %q", read, want)
		}
		if a.StopServing() {
			t.Error("StopServing on a conn no longer served: true, want false")
		}
	})
}

// Serve refuses what it cannot serve, with an error that says why.
func TestServeBadInput(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		h := func(c *Conn, in []byte, err error) int { return len(in) }
		a, _ := pair(t, l)
		if err := a.Serve(h); err != nil {
			t.Fatal(err)
		}
		if err := a.Serve(h); err == nil || !strings.Contains(err.Error(), "served already") {
			t.Errorf("a second Serve: %v, want an error saying it is served already", err)
		}
		c, _ := pair(t, l)
		c.Close()
		if err := c.Serve(h); !isClosedOp(err, "serve") {
			t.Errorf("Serve on a closed conn: %v, want net.ErrClosed", err)
		}
		u := listenOurs(t, l, "udp4")
		d, err := Dial(l, "udp4", u.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.Serve(h); err == nil || !strings.Contains(err.Error(), "datagram") {
			t.Errorf("Serve on a datagram conn: %v, want an error naming it", err)
		}
		var nilConn *Conn
		if err := nilConn.Serve(h); err == nil {
			t.Error("Serve on a nil *Conn: nil error")
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nil Handler") {
					t.Errorf("Serve(nil): panic %v, want one naming the nil Handler", r)
				}
			}()
			c, _ := pair(t, l)
			c.Serve(nil)
		}()
	})
}

// A Handler that returns more than it was given panics with a message
// that says so, reported as the loop reports a callback's panic.
func TestServeHandlerReturnsTooMuch(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		a.Serve(func(c *Conn, in []byte, err error) int { return len(in) + 1 })
		fiber(l, func() { b.Write([]byte("x")) })
		err := l.Run()
		var ue *core.UncaughtError
		if !errors.As(err, &ue) || !strings.Contains(fmt.Sprint(ue.Value), "returned 2 for 1 bytes") {
			t.Fatalf("Run: %v, want the Handler's bad count named", err)
		}
	})
}

// The read deadline bounds a served conn's wait for its next bytes, as it
// bounds a Read: once it passes, the Handler's last call gets a timeout,
// whether it was set (or passed) before the wait began or during it, and
// even if bytes came too (a Read fails so, as net's).
func TestServeReadDeadline(t *testing.T) {
	watchdog(t, time.Minute)
	for _, when := range []string{"before the wait", "passed before the wait", "during the wait", "passed with bytes waiting"} {
		t.Run(when, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				a, b := pair(t, l)
				var got string
				var lastErr error
				switch when {
				case "before the wait":
					a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
				case "passed before the wait":
					a.SetReadDeadline(time.Now().Add(-time.Second))
				}
				if err := a.Serve(func(c *Conn, in []byte, err error) int {
					got += string(in)
					lastErr = err
					return len(in)
				}); err != nil {
					t.Fatal(err)
				}
				fiber(l, func() { // a tick after the wait began
					fiber(l, func() {
						switch when {
						case "during the wait":
							a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
						case "passed with bytes waiting":
							a.SetReadDeadline(time.Now().Add(-time.Second))
							b.Write([]byte("x"))
						}
					})
				})
				guard := l.Delay(10*time.Second, func(core.CallbackID) {
					t.Error("the deadline did not end the wait in 10 s")
					a.Close()
				})
				l.Unreference(guard)
				if err := l.Run(); err != nil {
					t.Fatal(err)
				}
				l.Cancel(guard)
				if !isTimeout(lastErr) || got != "" {
					t.Errorf("the Handler got %q and last %v, want nothing and a timeout", got, lastErr)
				}
			})
		})
	}
}

// Listener.Serve serves every conn it accepts, from a fiber or from a
// goroutine that is not the loop's, and returns the error that stopped
// it: net.ErrClosed's once the listener is closed.
func TestListenerServe(t *testing.T) {
	watchdog(t, time.Minute)
	for _, where := range []string{"fiber", "goroutine"} {
		t.Run(where, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				ln, err := Listen(l, "tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				serveErr := make(chan error, 1)
				if where == "fiber" {
					fiber(l, func() { serveErr <- ln.Serve(echo) })
					runLoop(t, l)
				} else {
					go func() { serveErr <- ln.Serve(echo) }()
				}
				for i := range 3 {
					c, err := net.Dial("tcp", ln.Addr().String())
					if err != nil {
						t.Fatal(err)
					}
					want := fmt.Sprint("conn ", i)
					c.Write([]byte(want))
					buf := make([]byte, 16)
					n, err := c.Read(buf)
					if err != nil || string(buf[:n]) != want {
						t.Errorf("echo of %q: %q, %v", want, buf[:n], err)
					}
					c.Close()
				}
				ln.Close()
				if err := <-serveErr; !isClosedOp(err, "accept") {
					t.Errorf("Serve returned %v, want the listener closed", err)
				}
			})
		})
	}
}

// StopServing and the Reads after it from a goroutine that is not the
// loop's: the bytes the Handler left come first, then the socket's, and
// the Handler is not called again.
func TestServeStopServingFromAnotherGoroutine(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		runLoop(t, l)
		ran := make(chan string, 4)
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			ran <- fmt.Sprintf("%q %v", in, err)
			return 1
		}); err != nil {
			t.Fatal(err)
		}
		onLoop(t, l, func() { b.Write([]byte("abc")) })
		if got := <-ran; got != `"abc" <nil>` {
			t.Fatalf("the run got %s", got)
		}
		if !a.StopServing() {
			t.Fatal("StopServing: false, want true")
		}
		onLoop(t, l, func() { b.Write([]byte("d")) })
		a.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
		buf := make([]byte, 8)
		for _, want := range []string{"bc", "d"} {
			n, err := a.Read(buf)
			if err != nil || string(buf[:n]) != want {
				t.Fatalf("Read: %q, %v; want %q", buf[:n], err, want)
			}
		}
		select {
		case got := <-ran:
			t.Errorf("the Handler ran after StopServing: %s", got)
		default:
		}
	})
}

// Runs that suspend hold their parts of the loop's read buffer, and a
// read that finds too little room behind them goes to a fresh buffer:
// conns enough to fill the buffer with held parts, and two more, all get
// their bytes, and every run's bytes stay as they came until it returns.
func TestServeRunsHoldTheirParts(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const conns = serveBufSize/serveMinRead + 2
		var waiting []*core.Suspension
		arrived := make(chan int, conns)
		for i := range conns {
			a, b := pair(t, l)
			msg := bytes.Repeat([]byte{byte('a' + i)}, serveMinRead)
			if err := a.Serve(func(c *Conn, in []byte, err error) int {
				if err != nil {
					return 0
				}
				if len(in) < len(msg) {
					return 0 // the rest to come
				}
				kept := bytes.Clone(in)
				s := l.Suspension()
				waiting = append(waiting, s)
				arrived <- i
				s.Suspend()
				if !bytes.Equal(in, kept) {
					t.Errorf("conn %d: its bytes changed while its run was suspended", i)
				}
				c.Close()
				return len(in)
			}); err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			go b.Write(msg)
		}
		runLoop(t, l)
		for range conns {
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatalf("only %d of %d runs got their bytes", len(arrived), conns)
			}
		}
		done := make(chan struct{})
		l.Post(func() {
			for _, s := range waiting {
				s.Resume(nil)
			}
			close(done)
		})
		<-done
	})
}

// A Handler that waits for a message longer than the loop's buffer gets
// it whole, in order, run after run: the bytes it keeps go to the loop's
// buffer while they leave a read its room there, and grow where they are
// kept past that, however the buffer is shared. Another conn's run holds
// part of the buffer meanwhile, so that a read behind it is short of
// room unless the kept bytes are counted in what is asked for.
func TestServeKeepsALongMessage(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const held = 40 << 10
		pieces := []int{30 << 10, 10 << 10, 20 << 10, 20 << 10, 20 << 10}
		total := 0
		for _, n := range pieces {
			total += n
		}
		msg := make([]byte, total+1)
		for i := range total {
			msg[i] = byte('a' + i%23)
		}
		msg[total] = '\n'

		// a's run suspends holding the first held bytes of a buffer.
		a, aPeer := pair(t, l)
		holding := &turns{l: l}
		var resumeA *core.Suspension
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			if err != nil || len(in) < held {
				return 0
			}
			kept := bytes.Clone(in)
			resumeA = l.Suspension()
			holding.done()
			resumeA.Suspend()
			if !bytes.Equal(in, kept) {
				t.Error("a's bytes changed while its run was suspended")
			}
			c.Close()
			return len(in)
		}); err != nil {
			t.Fatal(err)
		}

		// b keeps all it gets until the message's end.
		b, bPeer := pair(t, l)
		tu := &turns{l: l}
		have, whole := 0, false
		var bErr error
		if err := b.Serve(func(c *Conn, in []byte, err error) int {
			defer tu.done()
			if err != nil {
				bErr = err
				return 0
			}
			have = len(in)
			if len(in) > len(msg) || !bytes.Equal(in, msg[:len(in)]) {
				t.Errorf("a run of b got %d bytes that are not the message's first", len(in))
				c.Close()
				return 0
			}
			if len(in) < len(msg) {
				return 0
			}
			whole = true
			c.Close()
			return len(in)
		}); err != nil {
			t.Fatal(err)
		}

		fiber(l, func() {
			defer func() {
				if resumeA != nil {
					resumeA.Resume(nil)
				}
			}()
			sent := 0
			send := func(n int) bool {
				if _, err := bPeer.Write(msg[sent : sent+n]); err != nil {
					t.Error(err)
					return false
				}
				sent += n
				for have < sent && bErr == nil && !whole {
					tu.wait()
				}
				if bErr != nil && !whole {
					t.Errorf("b's Handler got %v after %d of the message's %d bytes", bErr, have, len(msg))
					return false
				}
				return true
			}
			if !send(pieces[0]) {
				return
			}
			if _, err := aPeer.Write(make([]byte, held)); err != nil {
				t.Error(err)
				return
			}
			for resumeA == nil {
				holding.wait()
			}
			for _, n := range append(pieces[1:], 1) {
				if !send(n) {
					return
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if !whole {
			t.Errorf("b's Handler saw %d of the message's %d bytes", have, len(msg))
		}
	})
}

// A Handler that panics while it waits for a long message (kept past the
// loop's buffer) is treated as any that panics: its panic is the one
// reported, and its conn is closed.
func TestServeHandlerPanicsWithALongMessageKept(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const long = serveBufSize - serveMinRead + 1<<10
		a, peer := pair(t, l)
		tu := &turns{l: l}
		have := 0
		if err := a.Serve(func(c *Conn, in []byte, err error) int {
			defer tu.done()
			if err != nil {
				return 0
			}
			have = len(in)
			if bytes.HasSuffix(in, []byte("boom")) {
				panic("boom with " + strconv.Itoa(len(in)) + " bytes")
			}
			return 0
		}); err != nil {
			t.Fatal(err)
		}
		var reported error
		l.SetErrorHandler(func(err error) { reported = err })
		fiber(l, func() {
			if _, err := peer.Write(make([]byte, long)); err != nil {
				t.Error(err)
				return
			}
			for have < long {
				tu.wait()
			}
			peer.Write([]byte("boom"))
			if n, err := peer.Read(make([]byte, 8)); err != io.EOF {
				t.Errorf("the peer read %d, %v; want io.EOF (the conn closed)", n, err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		var ue *core.UncaughtError
		if want := "boom with " + strconv.Itoa(long+4) + " bytes"; !errors.As(reported, &ue) || fmt.Sprint(ue.Value) != want {
			t.Errorf("reported %v, want a *core.UncaughtError of %q", reported, want)
		}
	})
}

// registrations counts the driver registrations of the fds it is told.
type registrations struct {
	driver.Driver
	fds map[int]int
}

func (d *registrations) Register(fd int, tok driver.Token, in driver.Interest) error {
	if n, ok := d.fds[fd]; ok {
		d.fds[fd] = n + 1
	}
	return d.Driver.Register(fd, tok, in)
}

// A served conn's first run reads before the conn is registered with the
// driver: bytes that came with it (a request right behind the handshake)
// are served at once, and a conn that its Handler closes in that run is
// never registered. A conn that has nothing yet registers when it waits,
// and is served when its bytes come.
func TestServeReadsBeforeItRegisters(t *testing.T) {
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			d := &registrations{Driver: wrappedDriver(t, name), fds: map[int]int{}}
			l := core.New(d)
			defer l.Close()
			a, b := pair(t, l)
			c, e := pair(t, l)
			d.fds[a.fd.pd.Sysfd()], d.fds[c.fd.pd.Sysfd()] = 0, 0
			var got []string
			h := func(conn *Conn, in []byte, err error) int {
				if err == nil { // not the last call, which Close makes
					got = append(got, string(in))
					conn.Close()
				}
				return len(in)
			}
			fiber(l, func() {
				if _, err := b.Write([]byte("first")); err != nil {
					t.Error(err)
				}
				if err := a.Serve(h); err != nil {
					t.Error(err)
				}
				if err := c.Serve(h); err != nil {
					t.Error(err)
				}
				l.Delay(10*time.Millisecond, func(core.CallbackID) { e.Write([]byte("later")) })
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if want := []string{"first", "later"}; !slices.Equal(got, want) {
				t.Errorf("the Handler's calls: %q, want %q", got, want)
			}
			if n := d.fds[a.fd.pd.Sysfd()]; n != 0 {
				t.Errorf("the conn whose bytes came with it: %d registrations, want none", n)
			}
			if n := d.fds[c.fd.pd.Sysfd()]; n != 1 {
				t.Errorf("the conn whose bytes came later: %d registrations, want 1", n)
			}
		})
	}
}

// StopServing, or Close, between Serve and the first run: the run does
// not happen, and the bytes stay for Read.
func TestServeStoppedBeforeItsFirstRun(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		a.SetReadDeadline(time.Now().Add(5 * time.Second)) // a hang guard
		c, _ := pair(t, l)
		calls := 0
		h := func(*Conn, []byte, error) int { calls++; return 0 }
		var read string
		fiber(l, func() {
			b.Write([]byte("bytes"))
			if err := a.Serve(h); err != nil {
				t.Error(err)
			}
			if !a.StopServing() {
				t.Error("StopServing: false, want true")
			}
			if err := c.Serve(h); err != nil {
				t.Error(err)
			}
			c.Close()
			buf := make([]byte, 8)
			n, err := a.Read(buf)
			if err != nil {
				t.Error(err)
			}
			read = string(buf[:n])
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if calls != 1 || read != "bytes" {
			t.Errorf("the Handler ran %d times (want once: the closed conn's last call), Read got %q (want \"bytes\")", calls, read)
		}
	})
}

// doze suspends the calling fiber of l for d.
func doze(l *core.Loop, d time.Duration) {
	s := l.Suspension()
	l.Delay(d, func(core.CallbackID) { s.Resume(nil) })
	s.Suspend()
}

// StopServing while a run waits for the read lock (a Read on another fiber
// holds it) stops the serving before the run reads: the Handler is not
// called again, and the bytes the Read left are the next Read's.
func TestServeStoppedWhileItsRunWaitsForTheLock(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		a.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
		calls := 0
		var reads []string
		read := func() {
			buf := make([]byte, 8)
			n, err := a.Read(buf)
			if err != nil {
				t.Error(err)
			}
			reads = append(reads, string(buf[:n]))
		}
		fiber(l, read) // holds the read lock while it waits
		fiber(l, func() {
			if err := a.Serve(func(*Conn, []byte, error) int { calls++; return 0 }); err != nil {
				t.Error(err)
			}
			doze(l, 5*time.Millisecond) // the first run now waits for the lock
			if !a.StopServing() {
				t.Error("StopServing: false, want true")
			}
			// The waiting Read takes 8 and hands the lock on.
			b.Write([]byte("0123456789"))
			doze(l, 5*time.Millisecond)
			read()
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"01234567", "89"}; calls != 0 || !slices.Equal(reads, want) {
			t.Errorf("the Handler ran %d times (want none), the Reads got %q (want %q)", calls, reads, want)
		}
	})
}
