package core

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
)

// signalTable takes signals from os/signal for the loop. Each watched signal
// has its own channel and a goroutine that records arrivals and wakes the
// driver; when its last watcher goes, signal.Stop releases that channel only
// (never signal.Reset or Ignore: they are process-wide and the loop is
// embedded in programs that may use signals themselves).
type signalTable struct {
	watch   map[os.Signal]*sigWatch
	mu      sync.Mutex
	arrived []os.Signal
	spare   []os.Signal
	flag    atomic.Bool
	wg      sync.WaitGroup
}

type sigWatch struct {
	ch       chan os.Signal
	done     chan struct{}
	watchers []*callback
}

func (l *Loop) activateSignal(c *callback) {
	t := &l.signals
	sig := c.extra.sig
	w := t.watch[sig]
	if w == nil {
		if t.watch == nil {
			t.watch = make(map[os.Signal]*sigWatch)
		}
		w = &sigWatch{ch: make(chan os.Signal, 16), done: make(chan struct{})}
		t.watch[sig] = w
		signal.Notify(w.ch, sig)
		t.wg.Add(1)
		go l.forwardSignals(w)
	}
	w.watchers = append(w.watchers, c)
}

func (l *Loop) deactivateSignal(c *callback) {
	t := &l.signals
	sig := c.extra.sig
	w := t.watch[sig]
	if i := slices.Index(w.watchers, c); i >= 0 {
		w.watchers = slices.Delete(w.watchers, i, i+1)
	}
	if len(w.watchers) == 0 {
		delete(t.watch, sig)
		w.stop()
	}
}

func (w *sigWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
}

// forwardSignals runs on its own goroutine: the only way to learn of a
// signal is a channel, and the loop may be blocked in the driver.
func (l *Loop) forwardSignals(w *sigWatch) {
	t := &l.signals
	defer t.wg.Done()
	for {
		select {
		case sig := <-w.ch:
			t.mu.Lock()
			t.arrived = append(t.arrived, sig)
			t.mu.Unlock()
			t.flag.Store(true)
			_ = l.driver.Wakeup() // fails only once the driver is closed
		case <-w.done:
			return
		}
	}
}

// dispatchSignals queues the watchers of every signal that arrived; it
// reports whether there was any.
func (l *Loop) dispatchSignals() bool {
	t := &l.signals
	// Load first: a plain load costs nothing on the tick's hot path, the
	// swap is a locked instruction.
	if !t.flag.Load() || !t.flag.Swap(false) {
		return false
	}
	t.mu.Lock()
	arrived := t.arrived
	t.arrived = t.spare[:0]
	t.mu.Unlock()
	for _, sig := range arrived {
		if w := t.watch[sig]; w != nil {
			for _, c := range w.watchers {
				l.enqueue(c)
			}
		}
	}
	clear(arrived)
	t.spare = arrived[:0]
	return len(arrived) > 0
}

// stopAll releases every signal and waits for the forwarding goroutines.
func (t *signalTable) stopAll() {
	for sig, w := range t.watch {
		delete(t.watch, sig)
		w.stop()
	}
	t.wg.Wait()
}
