package fiber

import (
	"fmt"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testloop"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// eachDriver runs f as a subtest per driver (EVENTLOOP_DRIVER alone if
// set) with a fresh loop, closed when the case ends, and checks that the
// case left no goroutine and no descriptor behind.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range testloop.Drivers() {
		t.Run(name, func(t *testing.T) {
			testloop.Watchdog(t, time.Minute)
			testloop.NoLeaks(t)
			f(t, testloop.New(t, name))
		})
	}
}

// runIn runs fn in a fiber of l and runs l until nothing is left; Run's
// error fails the test.
func runIn(t *testing.T, l *core.Loop, fn func()) {
	t.Helper()
	l.Defer(func(core.CallbackID) { fn() })
	if err := l.Run(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// spawn runs fn in a new fiber of l, from a fiber of l.
func spawn(l *core.Loop, fn func()) { l.Queue(fn) }

// until suspends the calling fiber of l until cond
// holds, looking every millisecond: how a case waits for another fiber or goroutine to reach a wait
// without guessing a time.
func until(l *core.Loop, cond func() bool) {
	for !cond() {
		s := l.Suspension()
		l.Delay(time.Millisecond, func(core.CallbackID) { s.Resume(nil) })
		if _, err := s.Suspend(); err != nil {
			return
		}
	}
}

// sleep suspends the calling fiber of l for d.
func sleep(l *core.Loop, d time.Duration) {
	s := l.Suspension()
	l.Delay(d, func(core.CallbackID) { s.Resume(nil) })
	_, _ = s.Suspend()
}

// waiting counts the nodes parked on q.
func waiting[T any](q *waitList[T]) int {
	n := 0
	for x := q.head; x != nil; x = x.next {
		n++
	}
	return n
}

// testloopNew returns another loop on l's driver, closed when t ends.
func testloopNew(t *testing.T, l *core.Loop) *core.Loop {
	return testloop.New(t, l.Driver().Name())
}

// mustPanic checks that fn panics with the message want.
func mustPanic(t *testing.T, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic; want %q", want)
			return
		}
		if msg := fmt.Sprint(r); msg != want {
			t.Errorf("panic %q; want %q", msg, want)
		}
	}()
	fn()
}

// futureWaiting counts the waits on f: its sole waiter and its list's.
func futureWaiting[T any](f *Future[T]) int {
	n := 0
	if f.sole != nil {
		n++
	}
	if f.waiters != nil {
		n += waiting(f.waiters)
	}
	return n
}

// heldFuture starts a fiber of l, from a fiber of l, whose future gets v
// once release is called (not before the fiber has started).
func heldFuture(l *core.Loop, v int) (*Future[int], func()) {
	var s *core.Suspension
	f := Go(l, func() (int, error) {
		s = l.Suspension()
		_, err := s.Suspend()
		return v, err
	})
	return f, func() { s.Resume(nil) }
}
