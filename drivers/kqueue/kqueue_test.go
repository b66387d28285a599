//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/conformance"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"github.com/revoltgo/eventloop/internal/leakcheck"
)

func TestMain(m *testing.M) {
	// The test binary re-executed as a child that only holds inherited fds
	// (TestChildDoesNotHoldTheKqueue): it sleeps until killed.
	if os.Getenv("EVENTLOOP_KQUEUE_CHILD") != "" {
		time.Sleep(5 * time.Second)
		os.Exit(0)
	}
	leakcheck.Main(m)
}

// TestConformance runs the whole suite once per waker: EVFILT_USER
// (NOTE_TRIGGER, EV_CLEAR) where the platform has it, and the self-pipe
// that NetBSD and OpenBSD use.
func TestConformance(t *testing.T) {
	t.Run("EVFILT_USER", func(t *testing.T) {
		if !kqueue.HasUserFilter {
			t.Skip("no EVFILT_USER on this platform: New wakes through the self-pipe tested below")
		}
		conformance.Run(t, func() (core.Driver, error) { return kqueue.New() })
	})
	t.Run("pipe", func(t *testing.T) {
		conformance.Run(t, func() (core.Driver, error) { return kqueue.NewPipeWaker() })
	})
}

// BenchmarkDriver carries the names every driver uses, so that the figures
// line up in one table; BenchmarkDriverPipeWaker is the same with the
// self-pipe waker. Over libkqueue they measure libkqueue and cgo as much as
// the driver (KQUEUE.md measures one kevent call through cgo).
func BenchmarkDriver(b *testing.B) {
	conformance.Benchmark(b, func() (core.Driver, error) { return kqueue.New() })
}

func BenchmarkDriverPipeWaker(b *testing.B) {
	if !kqueue.HasUserFilter {
		b.Skip("New wakes through the self-pipe on this platform: BenchmarkDriver measures it")
	}
	conformance.Benchmark(b, func() (core.Driver, error) { return kqueue.NewPipeWaker() })
}
