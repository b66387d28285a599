package main

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/revoltgo/eventloop/internal/leakcheck"
)

// TestMain ignores the goroutines there before the tests: nbio's task
// pool starts them when its package initializes.
func TestMain(m *testing.M) { leakcheck.Main(m, goleak.IgnoreCurrent()) }

// TestWriteCounterCountsWritesBeforeAwait pins how gws' broadcast is
// timed: gws' goroutines write while the broadcast still queues frames,
// so the writes that returned before the wait began count (a wait that
// counted from its own start took 10 000 conns' writes as 1 858 and
// never ended).
func TestWriteCounterCountsWritesBeforeAwait(t *testing.T) {
	var w writeCounter
	w.wrote() // the handshake's
	before := w.n.Load()
	w.wrote()
	w.wrote()
	if err := w.await(before+2, leakcheck.Deadline); err != nil {
		t.Fatalf("two writes made before the wait: %v", err)
	}
	before = w.n.Load()
	w.wrote()
	done := make(chan error)
	go func() { done <- w.await(before+3, leakcheck.Deadline) }()
	for w.target.Load() == 0 { // until the wait has begun
		time.Sleep(time.Millisecond)
	}
	w.wrote()
	w.wrote()
	if err := <-done; err != nil {
		t.Fatalf("one write before the wait, two during it: %v", err)
	}
	before = w.n.Load()
	w.wrote()
	if err := w.await(before+2, 10*time.Millisecond); err == nil || !strings.Contains(err.Error(), "want") {
		t.Fatalf("one write of two: error %v, want one saying how many", err)
	}
}
