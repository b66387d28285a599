//go:build unix || windows

package socket

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"go.uber.org/goleak"
)

// TestBadInput runs the misuse and bad-luck cases of a socket's life on
// package net's sockets first, then on ours, on every driver of the build
// and with the calls made from every kind of caller (badModes), and wants
// the same outcome: each error matches net's (its *net.OpError's Op,
// net.ErrClosed, os.ErrDeadlineExceeded, io.EOF and the errno net's wraps,
// Timeout and Temporary), and so does every other thing a case looks at.
// Each run of a case, net's included, must leave as many descriptors open
// (where the system can count them) and as many goroutines as it found; a
// run of ours makes its own loop and closes it before it counts.
//
// Where ours does not do what net does, on purpose, the case says so and
// checks ours alone (checkClosedBehindWhileReadWaits).
//
// The cases: Close twice (and every call after Close); Close while a Read,
// a Write (its peer reads nothing) or an Accept waits, and two Closes at
// once; a deadline moved later (the call waits past the old one, then
// gets data or times out at the new one), moved earlier (Read, Write,
// Accept), removed, or already past before the call (which takes
// nothing); a descriptor closed behind the conn's back (before any wait,
// after one, after one and unawaited data, and while a Read waits); and
// EMFILE at Accept. TestCallsAfterClose, TestCloseFromAnotherFiberWakesReader,
// TestListenerClosedWhileAcceptWaits, TestCloseReturnsAfterClose,
// TestDeadlines and TestAcceptBacksOffOutOfDescriptors check some of these
// on ours alone (messages, timing, the back-off); this one adds net's
// verdict, every caller and the leak counts.
func TestBadInput(t *testing.T) {
	watchdog(t, 3*time.Minute)
	for _, bc := range badCases {
		t.Run(bc.name, func(t *testing.T) {
			if bc.skip != nil {
				if why := bc.skip(); why != "" {
					t.Skip(why)
				}
			}
			var want []badObs
			ok := t.Run("net", func(t *testing.T) {
				leakFree(t, func() { want = runBadCase(t, bc, nil, netMode) })
			})
			if !ok {
				t.Fatal("the case fails on package net's sockets")
			}
			for _, name := range drivers() {
				for _, m := range bc.modesOrAll() {
					t.Run(name+"/"+m.name, func(t *testing.T) {
						var got []badObs
						leakFree(t, func() {
							l, err := eventloop.NewWithDriver(name)
							if err != nil {
								t.Fatal(err)
							}
							defer func() {
								if err := l.Close(); err != nil {
									t.Errorf("loop's Close: %v", err)
								}
							}()
							got = runBadCase(t, bc, l, m)
						})
						if bc.check != nil {
							bc.check(t, got, want)
							return
						}
						sameObs(t, got, want)
					})
				}
			}
		})
	}
}

// callKind is where a call runs: a fiber of the conn's loop or a plain
// goroutine.
type callKind uint8

const (
	inFiber callKind = iota + 1
	inGoroutine
)

// badMode says where a case runs: its own steps (Close, a deadline's
// change) in body, the call that waits meanwhile in call; run says that a
// goroutine of the test runs the loop (else the calls run it themselves,
// nobody else does). A fiber body runs on the test's goroutine's l.Run.
type badMode struct {
	name string
	body callKind
	call callKind
	run  bool
}

var (
	badModes = []badMode{
		{"fibers", inFiber, inFiber, false},
		{"goroutines", inGoroutine, inGoroutine, true},
		{"goroutines-nobody-runs", inGoroutine, inGoroutine, false},
		{"fiber-waits-goroutine-acts", inGoroutine, inFiber, true},
		{"goroutine-waits-fiber-acts", inFiber, inGoroutine, false},
	}
	// bodyModes are the modes of a case whose calls do not wait on each
	// other: only where the body runs matters.
	bodyModes = badModes[:3]
	netMode   = badMode{"net", inGoroutine, inGoroutine, false}
)

// badCase is one case: body makes its calls through x (on net's sockets
// or ours) and records what it sees (x.see).
type badCase struct {
	name  string
	modes []badMode                               // nil: badModes
	skip  func() string                           // why the case cannot run here; "" to run
	check func(t *testing.T, ours, nets []badObs) // nil: sameObs
	body  func(x *badEnv)
}

func (bc *badCase) modesOrAll() []badMode {
	if bc.modes == nil {
		return badModes
	}
	return bc.modes
}

// badObs is one thing a case saw: a value and an error.
type badObs struct {
	what string
	val  any
	err  error
}

// String shows what was seen, with the error's text.
func (o badObs) String() string { return fmt.Sprintf("{%s: %v, %v}", o.what, o.val, o.err) }

// sameObs fails t unless ours saw what net's saw.
func sameObs(t *testing.T, ours, nets []badObs) {
	t.Helper()
	if len(ours) != len(nets) {
		t.Errorf("ours saw %d things, net's %d:\nours: %v\nnet's: %v", len(ours), len(nets), ours, nets)
		return
	}
	for i, o := range ours {
		n := nets[i]
		if o.what != n.what {
			t.Errorf("step %d: ours saw %q, net's %q", i, o.what, n.what)
			continue
		}
		if !reflect.DeepEqual(o.val, n.val) {
			t.Errorf("%s: ours %v, net's %v", o.what, o.val, n.val)
		}
		if d := errDiff(o.err, n.err); d != "" {
			t.Errorf("%s: ours %v, net's %v: %s", o.what, o.err, n.err, d)
		} else {
			t.Logf("%s: %v; ours: %v; net's: %v", o.what, o.val, o.err, n.err)
		}
	}
}

// errDiff says how ours differs from net's, "" if in nothing a caller of
// net looks at.
func errDiff(ours, nets error) string {
	if (ours == nil) != (nets == nil) {
		return "one is nil"
	}
	if nets == nil {
		return ""
	}
	var no, oo *net.OpError
	if errors.As(nets, &no) {
		if !errors.As(ours, &oo) || oo.Op != no.Op {
			return fmt.Sprintf("net's is a *net.OpError with Op %q", no.Op)
		}
		if (oo.Source == nil) != (no.Source == nil) || (oo.Addr == nil) != (no.Addr == nil) {
			return fmt.Sprintf("the *net.OpError's Source and Addr: ours %v and %v, net's %v and %v", oo.Source, oo.Addr, no.Source, no.Addr)
		}
	}
	for _, target := range []error{net.ErrClosed, os.ErrDeadlineExceeded, io.EOF} {
		if errors.Is(ours, target) != errors.Is(nets, target) {
			return fmt.Sprintf("errors.Is(err, %v) differs", target)
		}
	}
	var errno syscall.Errno
	if errors.As(nets, &errno) && !errors.Is(ours, errno) {
		return fmt.Sprintf("ours does not wrap net's errno %d (%v)", errno, errno)
	}
	var ne, oe net.Error
	if errors.As(nets, &ne) {
		if !errors.As(ours, &oe) {
			return "ours is not a net.Error"
		}
		if oe.Timeout() != ne.Timeout() || oe.Temporary() != ne.Temporary() {
			return fmt.Sprintf("Timeout, Temporary: ours %v, %v; net's %v, %v", oe.Timeout(), oe.Temporary(), ne.Timeout(), ne.Temporary())
		}
	}
	return ""
}

// leakFree runs f and fails t if it left a goroutine or a descriptor.
func leakFree(t *testing.T, f func()) {
	t.Helper()
	fds, counted := leakcheck.FDs()
	goroutines := goleak.IgnoreCurrent()
	f()
	if err := goleak.Find(goroutines); err != nil {
		t.Errorf("goroutines left behind: %v", err)
	}
	if !counted {
		return
	}
	// Close returns once closed: Leaked's deadline is reached only by a leak.
	if err := leakcheck.Leaked(fds, leakcheck.Deadline); err != nil {
		t.Error(err)
	}
}

// runBadCase runs bc on l's sockets in mode m (l nil: on net's) and
// returns what it saw.
func runBadCase(t *testing.T, bc badCase, l *core.Loop, m badMode) []badObs {
	t.Helper()
	x := &badEnv{t: t, l: l, m: m}
	body := func() {
		defer func() {
			for i := len(x.cleanups) - 1; i >= 0; i-- {
				x.cleanups[i]()
			}
		}()
		bc.body(x)
	}
	switch {
	case l != nil && m.body == inFiber:
		finished := false
		fiber(l, func() {
			defer func() { finished = true }()
			body()
		})
		if err := l.Run(); err != nil {
			t.Errorf("Run: %v", err)
		}
		if !finished {
			t.Errorf("Run returned before the case ended")
		}
	default:
		var stop func()
		if l != nil && m.run {
			stop = runLoop(t, l)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			body()
		}()
		<-done
		if stop != nil {
			stop()
		}
	}
	return x.obs
}

// badEnv is what a case's body calls: its sockets (net's or ours) and the
// callers of its mode.
type badEnv struct {
	t        *testing.T
	l        *core.Loop // nil: package net's sockets
	m        badMode
	obs      []badObs
	cleanups []func()
}

func (x *badEnv) ours() bool { return x.l != nil }

// see records what the case saw.
func (x *badEnv) see(what string, val any, err error) {
	x.obs = append(x.obs, badObs{what, val, err})
}

func (x *badEnv) errorf(format string, args ...any) {
	x.t.Errorf("%s: %s", x.m.name, fmt.Sprintf(format, args...))
}

// later runs f when the body ends, in its caller, last registered first.
func (x *badEnv) later(f func()) { x.cleanups = append(x.cleanups, f) }

// listen returns a TCP listener on the loopback interface.
func (x *badEnv) listen() net.Listener {
	var ln net.Listener
	var err error
	if x.ours() {
		ln, err = Listen(x.l, "tcp", "127.0.0.1:0")
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		x.errorf("listen: %v", err)
		return nil
	}
	x.later(func() { ln.Close() })
	return ln
}

// pair returns a, a TCP conn of the kind under test, and its peer, one of
// package net's.
func (x *badEnv) pair() (a, peer net.Conn) {
	std, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		x.errorf("listen: %v", err)
		return nil, nil
	}
	defer std.Close()
	if x.ours() {
		a, err = Dial(x.l, "tcp", std.Addr().String())
	} else {
		a, err = net.Dial("tcp", std.Addr().String())
	}
	if err != nil {
		x.errorf("dial: %v", err)
		return nil, nil
	}
	// Connected in the kernel already: Accept does not wait (from a fiber
	// it would block the loop's thread).
	peer, err = std.Accept()
	if err != nil {
		a.Close()
		x.errorf("accept: %v", err)
		return nil, nil
	}
	x.later(func() { a.Close(); peer.Close() })
	return a, peer
}

// smallBuffers makes the send buffer of a and the receive buffer of peer
// small, so that a Write waits soon.
func (x *badEnv) smallBuffers(a, peer net.Conn) {
	type buffers interface {
		SetReadBuffer(int) error
		SetWriteBuffer(int) error
	}
	if err := a.(buffers).SetWriteBuffer(16 << 10); err != nil {
		x.errorf("SetWriteBuffer: %v", err)
	}
	if err := peer.(buffers).SetReadBuffer(16 << 10); err != nil {
		x.errorf("SetReadBuffer: %v", err)
	}
}

// badCall is a call started by start: done is closed when it returns.
type badCall struct{ done chan struct{} }

// start runs fn as the call of the mode: in a new fiber of the loop or a
// new goroutine.
func (x *badEnv) start(fn func()) *badCall {
	c := &badCall{done: make(chan struct{})}
	run := func() {
		defer close(c.done)
		fn()
	}
	switch {
	case !x.ours() || x.m.call == inGoroutine:
		go run()
	case x.m.body == inFiber:
		fiber(x.l, run)
	default:
		if err := x.l.Post(run); err != nil {
			x.errorf("Post: %v", err)
			close(c.done)
		}
	}
	return c
}

// sleep waits for d, suspending a fiber body (the loop goes on).
func (x *badEnv) sleep(d time.Duration) {
	if x.ours() && x.m.body == inFiber {
		s := x.l.Suspension()
		x.l.Delay(d, func(core.CallbackID) { s.Resume(nil) })
		if _, err := s.Suspend(); err != nil {
			x.errorf("Suspend: %v", err)
		}
		return
	}
	time.Sleep(d)
}

func (x *badEnv) sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		x.sleep(d)
	}
}

func (c *badCall) returned() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// join waits until c has returned.
func (x *badEnv) join(c *badCall) {
	if x.ours() && x.m.body == inFiber {
		for !c.returned() {
			x.sleep(time.Millisecond)
		}
		return
	}
	<-c.done
}

// waiting waits until c waits for its socket (or has returned): until a
// goroutine's stack shows a wait on a socket, ours (core.FD's) or net's
// (the runtime's poller). A case's calls are the only ones that wait.
func (x *badEnv) waiting(c *badCall) {
	buf := make([]byte, 1<<20)
	for range 10000 {
		if c.returned() {
			return
		}
		// A goroutine waits in the call if its stack is in an FD's wait,
		// or in the runtime's netpoller for a net.Conn: not for the epoll
		// instance that a loop's driver parks on when it has nothing to do.
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			for _, mark := range []string{"core.(*FD).Wait(", "core.(*FD).wait(", "core.(*FD).waitGoroutine("} {
				if strings.Contains(g, mark) {
					return
				}
			}
			if strings.Contains(g, "internal/poll.runtime_pollWait(") && !strings.Contains(g, "eventloop/drivers/") {
				return
			}
		}
		x.sleep(time.Millisecond)
	}
	x.errorf("the call did not wait")
}

// closeBehind closes the descriptor of c behind its back.
func (x *badEnv) closeBehind(c net.Conn) {
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		x.errorf("SyscallConn: %v", err)
		return
	}
	var cerr error
	if err := rc.Control(func(fd uintptr) { cerr = closeSocket(fd) }); err != nil || cerr != nil {
		x.errorf("closing the descriptor behind the conn's back: %v, %v", err, cerr)
	}
}

type deadliner interface{ SetDeadline(time.Time) error }

// longAgo is a deadline in the past.
var longAgo = time.Unix(1, 0)

// deadlineSteps are the first deadlines the deadline cases try, each
// longer than the last: a case whose body could not move the deadline
// before it passed (a loaded machine) tries again with the next.
var deadlineSteps = []time.Duration{30 * time.Millisecond, 120 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second}

var badCases = []badCase{
	{
		// Close twice, and every call after Close: net.ErrClosed, in a
		// *net.OpError of the call's Op; the peer reads EOF.
		name:  "CloseTwice",
		modes: bodyModes,
		body: func(x *badEnv) {
			a, peer := x.pair()
			ln := x.listen()
			if a == nil || ln == nil {
				return
			}
			x.see("Close", nil, a.Close())
			x.see("second Close", nil, a.Close())
			n, err := a.Read(make([]byte, 8))
			x.see("Read after Close", n, err)
			n, err = a.Write([]byte("x"))
			x.see("Write after Close", n, err)
			x.see("SetDeadline after Close", nil, a.SetDeadline(time.Now()))
			n, err = peer.Read(make([]byte, 8))
			x.see("peer's Read", n, err)
			x.see("Listener's Close", nil, ln.Close())
			x.see("Listener's second Close", nil, ln.Close())
			_, err = ln.Accept()
			x.see("Accept after Close", nil, err)
		},
	},
	{
		name: "CloseWhileReadWaits",
		body: func(x *badEnv) {
			a, _ := x.pair()
			if a == nil {
				return
			}
			var n int
			var err error
			c := x.start(func() { n, err = a.Read(make([]byte, 8)) })
			x.waiting(c)
			x.see("Close", nil, a.Close())
			x.join(c)
			x.see("waiting Read", n, err)
		},
	},
	{
		name: "CloseWhileWriteWaits",
		body: func(x *badEnv) {
			a, peer := x.pair()
			if a == nil {
				return
			}
			x.smallBuffers(a, peer)
			var n int
			var err error
			c := x.start(func() { n, err = a.Write(make([]byte, 64<<20)) })
			x.waiting(c)
			x.see("Close", nil, a.Close())
			x.join(c)
			x.see("waiting Write wrote some", n > 0, err)
		},
	},
	{
		name: "CloseWhileAcceptWaits",
		body: func(x *badEnv) {
			ln := x.listen()
			if ln == nil {
				return
			}
			var err error
			c := x.start(func() { _, err = ln.Accept() })
			x.waiting(c)
			x.see("Close", nil, ln.Close())
			x.join(c)
			x.see("waiting Accept", nil, err)
		},
	},
	{
		// Two Closes at once while a Read waits: one closes, the other
		// fails with net.ErrClosed; the Read too.
		name: "TwoClosesWhileReadWaits",
		body: func(x *badEnv) {
			a, _ := x.pair()
			if a == nil {
				return
			}
			var n int
			var rerr, cerr error
			r := x.start(func() { n, rerr = a.Read(make([]byte, 8)) })
			x.waiting(r)
			c := x.start(func() { cerr = a.Close() })
			err := a.Close()
			x.join(c)
			x.join(r)
			var outcome []string
			for _, err := range []error{err, cerr} {
				switch {
				case err == nil:
					outcome = append(outcome, "nil")
				case isClosedOp(err, "close"):
					outcome = append(outcome, "closed")
				default:
					outcome = append(outcome, err.Error())
				}
			}
			if outcome[0] > outcome[1] {
				outcome[0], outcome[1] = outcome[1], outcome[0]
			}
			x.see("the two Closes", strings.Join(outcome, ", "), nil)
			x.see("waiting Read", n, rerr)
		},
	},
	{
		// A read deadline moved later while a Read waits: the Read still
		// waits past the old one, and gets the data that comes then.
		name: "DeadlineMovedLaterThenData",
		body: func(x *badEnv) {
			a, peer := x.pair()
			if a == nil {
				return
			}
			for _, d := range deadlineSteps {
				old := time.Now().Add(d)
				a.SetReadDeadline(old)
				var n int
				var err error
				buf := make([]byte, 8)
				c := x.start(func() { n, err = a.Read(buf) })
				x.waiting(c)
				a.SetReadDeadline(time.Now().Add(time.Hour))
				if !time.Now().Before(old) { // too late to tell: again, with more time
					a.SetReadDeadline(longAgo)
					x.join(c)
					continue
				}
				x.sleepUntil(old.Add(d))
				x.see("returned before data came", c.returned(), nil)
				peer.Write([]byte("data"))
				x.join(c)
				x.see("waiting Read", string(buf[:n]), err)
				return
			}
			x.errorf("the deadline passed before it could be moved, %d times", len(deadlineSteps))
		},
	},
	{
		// A read deadline moved later while a Read waits: the Read still
		// waits past the old one, and times out at the new one.
		name: "DeadlineMovedLaterThenTimeout",
		body: func(x *badEnv) {
			a, _ := x.pair()
			if a == nil {
				return
			}
			for _, d := range deadlineSteps {
				old := time.Now().Add(d)
				a.SetReadDeadline(old)
				var n int
				var err error
				c := x.start(func() { n, err = a.Read(make([]byte, 8)) })
				x.waiting(c)
				moved := old.Add(2 * d)
				a.SetReadDeadline(moved)
				if !time.Now().Before(old) {
					a.SetReadDeadline(longAgo)
					x.join(c)
					continue
				}
				x.sleepUntil(old.Add(d))
				x.see("returned between the old deadline and the new", c.returned(), nil)
				x.join(c)
				x.see("returned before the new deadline", time.Now().Before(moved), nil)
				x.see("waiting Read", n, err)
				return
			}
			x.errorf("the deadline passed before it could be moved, %d times", len(deadlineSteps))
		},
	},
	{
		// A read deadline moved earlier while a Read waits: it times out
		// at the earlier one.
		name: "DeadlineMovedEarlier",
		body: func(x *badEnv) {
			a, _ := x.pair()
			if a == nil {
				return
			}
			a.SetReadDeadline(time.Now().Add(time.Hour))
			var n int
			var err error
			c := x.start(func() { n, err = a.Read(make([]byte, 8)) })
			x.waiting(c)
			moved := time.Now().Add(30 * time.Millisecond)
			a.SetReadDeadline(moved)
			x.join(c)
			x.see("returned before the new deadline", time.Now().Before(moved), nil)
			x.see("waiting Read", n, err)
		},
	},
	{
		// The same for a Write that waits for room.
		name: "WriteDeadlineMovedEarlier",
		body: func(x *badEnv) {
			a, peer := x.pair()
			if a == nil {
				return
			}
			x.smallBuffers(a, peer)
			a.SetWriteDeadline(time.Now().Add(time.Hour))
			var n int
			var err error
			c := x.start(func() { n, err = a.Write(make([]byte, 64<<20)) })
			x.waiting(c)
			moved := time.Now().Add(30 * time.Millisecond)
			a.SetWriteDeadline(moved)
			x.join(c)
			x.see("returned before the new deadline", time.Now().Before(moved), nil)
			x.see("waiting Write wrote some", n > 0, err)
		},
	},
	{
		// The same for an Accept.
		name: "AcceptDeadlineMovedEarlier",
		body: func(x *badEnv) {
			ln := x.listen()
			if ln == nil {
				return
			}
			ln.(deadliner).SetDeadline(time.Now().Add(time.Hour))
			var err error
			c := x.start(func() { _, err = ln.Accept() })
			x.waiting(c)
			moved := time.Now().Add(30 * time.Millisecond)
			ln.(deadliner).SetDeadline(moved)
			x.join(c)
			x.see("returned before the new deadline", time.Now().Before(moved), nil)
			x.see("waiting Accept", nil, err)
		},
	},
	{
		// A read deadline removed while a Read waits: the Read waits past
		// it, and gets the data that comes then.
		name: "DeadlineRemoved",
		body: func(x *badEnv) {
			a, peer := x.pair()
			if a == nil {
				return
			}
			for _, d := range deadlineSteps {
				old := time.Now().Add(d)
				a.SetReadDeadline(old)
				var n int
				var err error
				buf := make([]byte, 8)
				c := x.start(func() { n, err = a.Read(buf) })
				x.waiting(c)
				a.SetReadDeadline(time.Time{})
				if !time.Now().Before(old) {
					a.SetReadDeadline(longAgo)
					x.join(c)
					a.SetReadDeadline(time.Time{})
					continue
				}
				x.sleepUntil(old.Add(d))
				x.see("returned before data came", c.returned(), nil)
				peer.Write([]byte("data"))
				x.join(c)
				x.see("waiting Read", string(buf[:n]), err)
				return
			}
			x.errorf("the deadline passed before it could be removed, %d times", len(deadlineSteps))
		},
	},
	{
		// Deadlines already past before the call: Read, Write and Accept
		// fail at once, and take nothing: with the deadline cleared, the
		// data that was waiting is read, and the connection that was
		// waiting accepted.
		name:  "DeadlineInThePast",
		modes: bodyModes,
		body: func(x *badEnv) {
			a, peer := x.pair()
			ln := x.listen()
			if a == nil || ln == nil {
				return
			}
			peer.Write([]byte("data"))
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				x.errorf("dial: %v", err)
				return
			}
			x.later(func() { client.Close() })
			x.sleep(10 * time.Millisecond) // the data and the connection are there

			a.SetReadDeadline(longAgo)
			buf := make([]byte, 8)
			n, err := a.Read(buf)
			x.see("Read", n, err)
			a.SetReadDeadline(time.Time{})
			n, err = a.Read(buf)
			x.see("Read with the deadline cleared", string(buf[:n]), err)

			a.SetWriteDeadline(longAgo)
			n, err = a.Write([]byte("x"))
			x.see("Write", n, err)
			a.SetWriteDeadline(time.Time{})
			n, err = a.Write([]byte("x"))
			x.see("Write with the deadline cleared", n, err)

			ln.(deadliner).SetDeadline(longAgo)
			c, err := ln.Accept()
			x.see("Accept", c == nil, err)
			ln.(deadliner).SetDeadline(time.Time{})
			c, err = ln.Accept()
			x.see("Accept with the deadline cleared", c != nil, err)
			if c != nil {
				c.Close()
			}
		},
	},
	{
		// The descriptor closed behind the conn's back (a bug of the
		// caller's): Read, Write and Close fail with EBADF, as net's, and
		// nothing hangs or panics. The conn never waited: the driver never
		// saw the descriptor.
		name:  "ClosedBehindBack",
		modes: bodyModes,
		skip:  skipClosedBehind,
		check: checkClosedBehind,
		body:  func(x *badEnv) { closedBehind(x, false, false) },
	},
	{
		// The same after a wait, so the driver has the descriptor
		// registered (netpoll watches a dup of it, which keeps the socket
		// open until Close). In a fiber the Read, which follows a short
		// one, waits first: the loop's sweep finds the descriptor gone
		// and wakes it (the loop must not block meanwhile).
		name:  "ClosedBehindBackAfterAWait",
		modes: bodyModes,
		skip:  skipClosedBehind,
		check: checkClosedBehind,
		body:  func(x *badEnv) { closedBehind(x, true, false) },
	},
	{
		// The same, but with data that nobody waited for after the wait:
		// the loop took the descriptor's interest away, and a fiber's
		// Read asks the driver for it again, on a descriptor that is gone:
		// the driver's error (libkqueue says EFAULT) is worded as EBADF,
		// as net's.
		name:  "ClosedBehindBackAfterAWaitAndData",
		modes: bodyModes,
		skip:  skipClosedBehind,
		check: checkClosedBehind,
		body:  func(x *badEnv) { closedBehind(x, true, true) },
	},
	{
		// The descriptor closed behind the conn's back while a Read waits.
		// Package net's Read waits on (the kernel forgets a closed
		// descriptor's registration and says nothing) until Close wakes it
		// with net.ErrClosed. Ours is woken, once the loop's sweep finds
		// the descriptor gone (within a second), with an error wrapping
		// core.ErrFDClosed, and Close then returns EBADF, as net's after a
		// close behind its back: better than net, so it is checked alone.
		name:  "ClosedBehindBackWhileReadWaits",
		skip:  skipClosedBehind,
		check: checkClosedBehindWhileReadWaits,
		body: func(x *badEnv) {
			a, _ := x.pair()
			if a == nil {
				return
			}
			var n int
			var err error
			c := x.start(func() { n, err = a.Read(make([]byte, 8)) })
			x.waiting(c)
			x.closeBehind(a)
			for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && !c.returned(); {
				x.sleep(5 * time.Millisecond)
			}
			x.see("returned within 3 s", c.returned(), nil)
			x.see("Close", nil, a.Close())
			x.join(c)
			x.see("waiting Read", n, err)
		},
	},
	{
		// Out of descriptors (EMFILE) at Accept: the error net gives (a
		// temporary one); the listener goes on listening, and with
		// descriptors back accepts the connection that waited.
		name: "AcceptOutOfDescriptors",
		skip: func() string {
			if !canLimitFDs {
				return "the system has no per-process limit of sockets to lower (RLIMIT_NOFILE)"
			}
			return ""
		},
		body: func(x *badEnv) {
			ln := x.listen()
			if ln == nil {
				return
			}
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				x.errorf("dial: %v", err)
				return
			}
			x.later(func() { client.Close() })
			restore, err := limitFDs()
			if err != nil {
				x.errorf("lowering RLIMIT_NOFILE: %v", err)
				return
			}
			var c net.Conn
			call := x.start(func() { c, err = ln.Accept() })
			x.join(call)
			restore()
			x.see("Accept out of descriptors", c == nil, err)
			if c != nil {
				c.Close()
			}
			call = x.start(func() { c, err = ln.Accept() })
			x.join(call)
			x.see("Accept with descriptors back", c != nil, err)
			if c != nil {
				c.Close()
			}
		},
	},
}

func skipClosedBehind() string {
	if !canCloseBehind {
		return "closing a socket behind its conn's back is not possible here"
	}
	return ""
}

// closedBehind is the case of a descriptor closed behind the conn's back,
// after a wait or not, and with data nobody waited for after it or not.
// checkClosedBehind is sameObs but for the first Close on Windows: there
// the Close of a handle closed behind the conn's back fails, or succeeds
// on another socket that took the number meanwhile, by chance (net's did
// both under Wine, run to run), so neither side's result is compared.
func checkClosedBehind(t *testing.T, ours, nets []badObs) {
	t.Helper()
	if runtime.GOOS == "windows" {
		drop := func(obs []badObs) []badObs {
			return slices.DeleteFunc(slices.Clone(obs), func(o badObs) bool { return o.what == "Close" })
		}
		ours, nets = drop(ours), drop(nets)
	}
	sameObs(t, ours, nets)
}

func closedBehind(x *badEnv, waited, data bool) {
	a, peer := x.pair()
	if a == nil {
		return
	}
	if waited {
		buf := make([]byte, 8)
		c := x.start(func() { a.Read(buf) })
		x.waiting(c)
		peer.Write([]byte("x"))
		x.join(c)
	}
	if data {
		peer.Write([]byte("y"))
		x.sleep(20 * time.Millisecond) // the loop sees it, nobody waiting
	}
	x.closeBehind(a)
	n, err := a.Read(make([]byte, 8))
	x.see("Read", n, err)
	n, err = a.Write([]byte("x"))
	x.see("Write", n, err)
	x.see("Close", nil, a.Close())
	x.see("second Close", nil, a.Close())
	peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err = peer.Read(make([]byte, 8))
	x.see("peer's Read", n, err)
}

// checkClosedBehindWhileReadWaits: net's Read waits until Close, and that
// Close returns nil (the Read, the last to leave, closes the descriptor
// and drops close's EBADF). Ours is woken by the loop with an error that
// wraps both core.ErrFDClosed and the errno of a closed descriptor (EBADF:
// what net's Read says when it is called after such a close), in a
// *net.OpError "read"; its Close, made once nobody is in a call, returns
// what net's returns then (case ClosedBehindBack): EBADF.
func checkClosedBehindWhileReadWaits(t *testing.T, ours, nets []badObs) {
	t.Helper()
	if len(nets) != 3 || len(ours) != 3 {
		t.Fatalf("ours saw %v, net's %v", ours, nets)
	}
	t.Logf("net's: %v", nets)
	t.Logf("ours: %v", ours)
	if nets[0].val != false || nets[1].err != nil || !isClosedOp(nets[2].err, "read") {
		t.Logf("net's Read no longer waits for Close after its descriptor was closed behind its back: %v", nets)
	}
	if ours[0].val != true {
		t.Errorf("our Read still waits 3 s after its descriptor was closed")
	}
	var oe *net.OpError
	if err := ours[1].err; !errors.As(err, &oe) || oe.Op != "close" || !errors.Is(err, errBadFD) {
		t.Errorf("Close: %v, want a close *net.OpError wrapping %v", err, errBadFD)
	}
	if err := ours[2].err; !errors.Is(err, core.ErrFDClosed) || !errors.Is(err, errBadFD) || !errors.As(err, &oe) || oe.Op != "read" {
		t.Errorf("waiting Read: %v, want a read *net.OpError wrapping core.ErrFDClosed and %v", err, errBadFD)
	}
}
