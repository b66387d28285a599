// Package leakcheck is the guard of a test binary whose tests open loops,
// listeners or conns: Main runs the tests and then fails the run if more
// descriptors are open than before them (where they can be counted) or if
// a goroutine started by them is left (goleak). It imports only package
// testing, goleak and the standard library, so that every package's tests
// can use it, core's own included (package testloop imports core).
package leakcheck

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Deadline bounds the wait of Main (and of testloop.NoLeaks) for the
// descriptors that are closed late, by goroutines of net/http or of the
// runtime that the tests' Close calls did not wait for: a hang guard that
// only a leak reaches, never a bound on speed.
const Deadline = 10 * time.Second

// Count counts the open descriptors of the process; ok is false where they
// cannot be listed (Windows, whose handle count takes in every kind of
// handle and moves with every thread the runtime starts).
func Count() (n int, ok bool) {
	fds, ok := list()
	return len(fds), ok
}

// FDs lists the open descriptors of the process in increasing order; ok
// is false where they cannot be listed (Count).
func FDs() (fds []int, ok bool) { return list() }

// Main is what a TestMain calls: it runs m and exits with its code, or
// with 1 if the tests passed but left descriptors open (Leaked) or
// goroutines running (goleak.Find with opts).
func Main(m *testing.M, opts ...goleak.Option) {
	os.Exit(run(m, os.Stderr, Deadline, opts...))
}

func run(m interface{ Run() int }, w io.Writer, d time.Duration, opts ...goleak.Option) int {
	warm()
	before, counted := list()
	code := m.Run()
	if code != 0 {
		return code
	}
	if counted {
		if err := Leaked(before, d); err != nil {
			fmt.Fprintf(w, "leakcheck: %v\n", err)
			return 1
		}
	}
	if err := goleak.Find(opts...); err != nil {
		fmt.Fprintf(w, "goleak: Errors on successful test run: %v\n", err)
		return 1
	}
	return 0
}

// warm opens the descriptors that the runtime opens once, with the first
// file it polls (the poller's own and its wakeup), so that the count taken
// before the tests does not miss them: a pipe is such a file.
func warm() {
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
}

// Leaked waits, polling until deadline d, for no more descriptors to be
// open than the list before; it returns nil once that holds, and else an
// error that names the counts and the descriptors not in before (on
// Linux, with what /proc/self/fd says each one is). Each poll collects
// garbage first: a descriptor that only a finalizer or cleanup closes
// (the pipes that package net keeps in a sync.Pool for splice, a file
// dropped unclosed) is closed once nothing refers to it, not leaked.
func Leaked(before []int, d time.Duration) error {
	var after []int
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		after, _ = list()
		if len(after) <= len(before) || time.Now().After(end) {
			break
		}
	}
	if len(after) <= len(before) {
		return nil
	}
	var extra []string
	for _, fd := range after {
		if _, found := slices.BinarySearch(before, fd); !found {
			if what := describe(fd); what != "" {
				extra = append(extra, fmt.Sprintf("%d -> %s", fd, what))
			} else {
				extra = append(extra, fmt.Sprint(fd))
			}
		}
	}
	return fmt.Errorf("%d descriptors open before the tests, %d after (waited %v); not open before: %s",
		len(before), len(after), d, strings.Join(extra, ", "))
}
