//go:build unix

// Command suspension shows a fiber written in blocking style on a
// non-blocking socket: it suspends until the socket is readable, while a
// timer on the same loop writes to the other end. It is built on Unix
// only: its socket is one end of a socketpair(2), which Winsock lacks.
//
//	go run ./examples/suspension
//	EVENTLOOP_DRIVER=stream go run ./examples/suspension
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/revoltgo/eventloop"
	"golang.org/x/sys/unix"
)

// read suspends the calling fiber until fd is readable, then reads.
func read(l *eventloop.Loop, fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if err != unix.EAGAIN {
			return n, err
		}
		s := l.Suspension()
		id := l.OnReadable(fd, func(id eventloop.CallbackID, fd int) { s.Resume(nil) })
		_, err = s.Suspend()
		l.Cancel(id)
		if err != nil {
			return 0, err
		}
	}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "suspension:", err)
		os.Exit(1)
	}
}

func run() error {
	l, err := eventloop.New()
	if err != nil {
		return err
	}
	defer l.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			return err
		}
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])

	start := time.Now()
	fmt.Printf("driver %s (picked by %s; this build offers %v)\n",
		l.Driver().Name(), eventloop.DefaultDriverReason(), eventloop.Drivers())
	for i := range 3 {
		l.Delay(time.Duration(i+1)*10*time.Millisecond, func(eventloop.CallbackID) {
			msg := fmt.Sprintf("hello %d", i)
			fmt.Printf("%6.1f ms  timer writes %q\n", ms(start), msg)
			_, _ = unix.Write(fds[1], []byte(msg))
		})
	}
	l.Defer(func(eventloop.CallbackID) {
		buf := make([]byte, 64)
		for range 3 {
			fmt.Printf("%6.1f ms  fiber %d suspends in read\n", ms(start), l.FiberID())
			n, err := read(l, fds[0], buf)
			if err != nil {
				fmt.Println("read:", err)
				return
			}
			fmt.Printf("%6.1f ms  fiber %d read %q (resume depth %d)\n", ms(start), l.FiberID(), buf[:n], l.ResumeDepth())
		}
	})
	if err := l.Run(); err != nil {
		return err
	}
	st := l.Stats()
	fmt.Printf("done: %d ticks, %d callbacks, %d microtasks, %d fibers started, %d live\n",
		st.Ticks, st.Callbacks, st.Microtasks, st.FibersStarted, st.FibersLive)
	m := l.Metrics()
	fmt.Printf("busy %v of %v (utilization %.1f%%); timers ran at most %v late\n",
		m.Busy().Round(time.Microsecond), m.Running.Round(time.Microsecond),
		100*m.UtilizationSince(eventloop.Metrics{}).Utilization, m.TimerLateness.Max.Round(time.Microsecond))
	return nil
}

func ms(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }
