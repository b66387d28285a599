package eventloop_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/revoltgo/eventloop"
)

// New picks the driver (EVENTLOOP_DRIVER, a build tag, or the platform's
// best); Run runs the loop until nothing is left to do; Close ends it.
func ExampleNew() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close() // no goroutine of the loop outlives it
	l.Defer(func(eventloop.CallbackID) { fmt.Println("hello from the loop") })
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output: hello from the loop
}

// Microtasks run after the callback (or microtask) that queued them and
// before the next callback.
func ExampleLoop_Queue() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Defer(func(eventloop.CallbackID) {
		fmt.Println("first defer")
		l.Queue(func() { fmt.Println("its microtask") })
	})
	l.Defer(func(eventloop.CallbackID) { fmt.Println("second defer") })
	_ = l.Run()
	// Output:
	// first defer
	// its microtask
	// second defer
}

// A defer runs in the next tick, after the defers enabled before it; one
// deferred from a defer runs in the tick after.
func ExampleLoop_Defer() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Defer(func(eventloop.CallbackID) {
		fmt.Println("tick 1: a")
		l.Defer(func(eventloop.CallbackID) { fmt.Println("tick 2: c") })
	})
	l.Defer(func(eventloop.CallbackID) { fmt.Println("tick 1: b") })
	_ = l.Run()
	// Output:
	// tick 1: a
	// tick 1: b
	// tick 2: c
}

// Timers run by deadline, never early.
func ExampleLoop_Delay() {
	l, _ := eventloop.New()
	defer l.Close()
	start := time.Now()
	for _, d := range []time.Duration{20 * time.Millisecond, 10 * time.Millisecond} {
		l.Delay(d, func(eventloop.CallbackID) {
			fmt.Printf("%v timer, on time or late: %v\n", d, time.Since(start) >= d)
		})
	}
	_ = l.Run()
	// Output:
	// 10ms timer, on time or late: true
	// 20ms timer, on time or late: true
}

// A repeat timer runs until cancelled.
func ExampleLoop_Repeat() {
	l, _ := eventloop.New()
	defer l.Close()
	n := 0
	l.Repeat(time.Millisecond, func(id eventloop.CallbackID) {
		n++
		fmt.Println("run", n)
		if n == 3 {
			l.Cancel(id)
		}
	})
	_ = l.Run()
	// Output:
	// run 1
	// run 2
	// run 3
}

// Every callback runs in a fiber, which may suspend until something
// resumes it; other callbacks run meanwhile.
func ExampleLoop_Suspension() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Defer(func(eventloop.CallbackID) {
		s := l.Suspension()
		l.Delay(5*time.Millisecond, func(eventloop.CallbackID) { s.Resume("the timer's value") })
		fmt.Println("suspending")
		v, err := s.Suspend()
		fmt.Println("resumed with", v, err)
	})
	l.Defer(func(eventloop.CallbackID) { fmt.Println("another callback runs meanwhile") })
	_ = l.Run()
	// Output:
	// suspending
	// another callback runs meanwhile
	// resumed with the timer's value <nil>
}

// Await runs a blocking Go function on a goroutine of its own while the
// fiber waits: the loop is not blocked.
func ExampleAwait() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Defer(func(eventloop.CallbackID) {
		n, err := eventloop.Await(l, func(ctx context.Context) (int, error) {
			time.Sleep(5 * time.Millisecond) // a blocking call
			return 42, nil
		})
		fmt.Println("awaited", n, err)
	})
	l.Defer(func(eventloop.CallbackID) { fmt.Println("the loop goes on") })
	_ = l.Run()
	// Output:
	// the loop goes on
	// awaited 42 <nil>
}

// Post is the way in from other goroutines: the func runs on the loop,
// which a post wakes if it is blocked. A post not yet made does not keep
// the loop running: here a timer stands for what does (a server's
// listener), and the post cancels it.
func ExampleLoop_Post() {
	l, _ := eventloop.New()
	defer l.Close()
	keepAlive := l.Delay(time.Hour, func(eventloop.CallbackID) {})
	go func() {
		result := strings.ToUpper("computed elsewhere")
		_ = l.Post(func() {
			fmt.Println("on the loop:", result)
			l.Cancel(keepAlive)
		})
	}()
	_ = l.Run()
	// Output: on the loop: COMPUTED ELSEWHERE
}

// RunOnce runs one tick at a time, for a loop embedded in another one
// (whose own work goes between the ticks).
func ExampleLoop_RunOnce() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Delay(5*time.Millisecond, func(eventloop.CallbackID) { fmt.Println("timer") })
	l.Defer(func(eventloop.CallbackID) { fmt.Println("defer") })
	for {
		// The outer loop's own work would go here.
		alive, err := l.RunOnce(true) // true: may block until something is due
		if err != nil {
			log.Fatal(err)
		}
		if !alive {
			break
		}
	}
	fmt.Println("nothing left")
	// Output:
	// defer
	// timer
	// nothing left
}

// RunContext runs until its context is done: in a main, the context of
// signal.NotifyContext(context.Background(), os.Interrupt) stops the loop
// on Ctrl-C.
func ExampleLoop_RunContext() {
	l, _ := eventloop.New()
	defer l.Close()
	l.Repeat(time.Millisecond, func(eventloop.CallbackID) {}) // a server's work, forever
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	fmt.Println(l.RunContext(ctx))
	// Output: context deadline exceeded
}

// slowWork stands for a callback that blocks the loop: for 100 ms, and
// then until seen says the watchdog has reported it (or for 10 s), so
// that the report comes while it runs however late a loaded machine
// schedules the watchdog.
func slowWork(seen <-chan struct{}) {
	time.Sleep(100 * time.Millisecond)
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
	}
}

// The watchdog reports a callback that runs too long while it still runs,
// with the stack of its fiber (where it is stuck), and again when it
// returns. EVENTLOOP_DEBUG_SLOW=100ms does the same for every loop, to the
// standard logger.
func ExampleWithWatchdog() {
	seen := make(chan struct{}, 1)
	report := func(s eventloop.SlowCallback) {
		if s.Done {
			fmt.Printf("%s %s returned after more than 50ms: %v\n", s.Kind, s.ID, s.Elapsed > 50*time.Millisecond)
			return
		}
		fmt.Printf("%s %s still running, in slowWork: %v\n", s.Kind, s.ID, strings.Contains(s.Stack, "slowWork"))
		select {
		case seen <- struct{}{}:
		default:
		}
	}
	l, _ := eventloop.New(eventloop.WithWatchdog(20*time.Millisecond, report))
	l.Defer(func(eventloop.CallbackID) { slowWork(seen) })
	_ = l.Run()
	_ = l.Close() // the watchdog has made its reports when Close returns
	// Output:
	// defer cb1 still running, in slowWork: true
	// defer cb1 returned after more than 50ms: true
}

// Metrics tell what the loop ran and where its time went; they are safe to
// read from any goroutine (package expvarloop publishes them).
func ExampleLoop_Metrics() {
	l, _ := eventloop.New()
	defer l.Close()
	before := l.Metrics()
	for i := range 3 {
		l.Delay(time.Duration(i+1)*time.Millisecond, func(eventloop.CallbackID) {})
	}
	l.Defer(func(eventloop.CallbackID) { l.Queue(func() {}) })
	_ = l.Run()
	m := l.Metrics()
	fmt.Println("callbacks:", m.Callbacks, "of which delays:", m.CallbacksByType[eventloop.TypeDelay])
	fmt.Println("microtasks:", m.Microtasks)
	fmt.Println("timer lateness samples:", m.TimerLateness.Count)
	fmt.Println("p99 lateness below a second:", m.TimerLateness.Quantile(0.99) < time.Second)
	u := m.UtilizationSince(before)
	fmt.Println("idle + active = running:", u.Idle+u.Active == m.Running)
	// Output:
	// callbacks: 4 of which delays: 3
	// microtasks: 1
	// timer lateness samples: 3
	// p99 lateness below a second: true
	// idle + active = running: true
}
