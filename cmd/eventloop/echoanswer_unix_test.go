//go:build unix

package main

import (
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
)

// TestEchoServedHoldsNoFiber: with --serve an idle connection holds no
// fiber (the point of the served mode, which the idle table measures),
// where without it each holds one; each connection has echoed a byte
// first, so each is accepted and served.
func TestEchoServedHoldsNoFiber(t *testing.T) {
	watchdog(t, time.Minute)
	const conns = 50
	for _, serve := range []bool{false, true} {
		l, err := eventloop.New()
		if err != nil {
			t.Fatal(err)
		}
		srv, err := listenEcho(l, "127.0.0.1:0", false, echoOptions{serve: serve})
		if err != nil {
			l.Close()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- errors.Join(l.Run(), l.Close()) }()
		var cs []net.Conn
		for i := range conns {
			c, err := net.Dial("tcp", srv.addr.String())
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
			if err := echoByte(c, byte(i)); err != nil {
				t.Fatal(err)
			}
		}
		live := make(chan int, 1)
		// A fiber's Write returns before it reads again: its next Read
		// suspends it, in a tick that a Post sent now may precede. Its
		// fiber is live either way.
		if err := l.Post(func() { live <- l.Stats().FibersLive }); err != nil {
			t.Fatal(err)
		}
		n := <-live
		if serve && n >= conns || !serve && n < conns {
			t.Errorf("serve %v: %d fibers live with %d idle connections", serve, n, conns)
		}
		l.Post(srv.stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.Close()
		}
	}
}

// TestEchoAnswer: echo's answer to SIGUSR2 parses as bench --net reads it,
// with the memory of the process, the lateness of the loop's timer
// (--timer), which ran in the window, and that of the control ticker.
func TestEchoAnswer(t *testing.T) {
	watchdog(t, time.Minute)
	g, err := startEcho("", "127.0.0.1:0", 1, echoOptions{serve: true, timer: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l := g.servers[0].l
	ran := make(chan struct{})
	fired := 0
	l.Unreference(l.Repeat(time.Millisecond, func(id core.CallbackID) {
		if fired++; fired == 5 {
			close(ran)
		}
	}))
	done := make(chan error, 1)
	go func() { done <- g.run() }()
	<-ran
	marks := make([]core.Histogram, 1)
	ctl := &tickerControl{late: []time.Duration{time.Millisecond, 3 * time.Millisecond}}
	a, ok, err := parseMemAnswer(g.answer(marks, ctl))
	if !ok || err != nil {
		t.Fatalf("answer: %v, %v", ok, err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if a.heap <= 0 || a.stacks <= 0 || !a.hasLateness || a.timers < 5 {
		t.Errorf("answer %+v: want heap, stacks and the timers run", a)
	}
	if marks[0].Count < a.timers {
		t.Errorf("the mark holds %d timers, the answer %d: not moved on", marks[0].Count, a.timers)
	}
	if !a.hasTicker || a.tickerP99 != 3*time.Millisecond {
		t.Errorf("answer %+v: want the ticker's p99, 3ms", a)
	}
	if ticks := ctl.take(); len(ticks) != 0 {
		t.Errorf("the ticker's lateness %v is left for the next window", ticks)
	}
	g.stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestHistogramSince: the lateness of a window is the samples since the
// mark, not those before it, and its Max is the window's where it grew,
// else bounded by the window's top bucket.
func TestHistogramSince(t *testing.T) {
	var h core.Histogram
	add := func(d time.Duration, n int) {
		for range n {
			i := 0
			for ; i < core.HistogramBuckets-1; i++ {
				if _, hi := core.BucketBounds(i); d < hi {
					break
				}
			}
			h.Buckets[i]++
			h.Count++
			h.Sum += d
			h.Max = max(h.Max, d)
		}
	}
	// Before the mark: many shorter ones and the longest of all.
	add(10*time.Microsecond, 1000)
	add(50*time.Millisecond, 1)
	mark := h
	add(100*time.Microsecond, 99)
	add(2*time.Millisecond, 1)
	w := histogramSince(h, mark)
	if w.Count != 100 || w.Sum != 99*100*time.Microsecond+2*time.Millisecond {
		t.Errorf("window: %d samples, sum %v; want 100 and 11.9ms", w.Count, w.Sum)
	}
	if p := w.Quantile(0.5); p < 100*time.Microsecond || p > 200*time.Microsecond {
		t.Errorf("window p50 %v, want 100µs rounded up: the samples before the mark are in it", p)
	}
	if p := w.Quantile(1); p < 2*time.Millisecond || p > 2560*time.Microsecond {
		t.Errorf("window max %v (Max %v), want 2ms rounded up to its bucket", p, w.Max)
	}
	add(80*time.Millisecond, 1) // a new Max, in a new window
	w = histogramSince(h, mark)
	if w.Max != 80*time.Millisecond {
		t.Errorf("window Max %v, want 80ms", w.Max)
	}
	var m core.Histogram
	mergeHistogram(&m, w)
	mergeHistogram(&m, w)
	if m.Count != 2*w.Count || m.Max != w.Max || m.Quantile(0.5) != w.Quantile(0.5) {
		t.Errorf("merged %+v", m)
	}
}

// TestParseMemAnswer: the servers' answer to SIGUSR2, with and without the
// lateness of ours; another line is not one.
func TestParseMemAnswer(t *testing.T) {
	a, ok, err := parseMemAnswer("mem heap=1000 stacks=200 goroutines=3 timers=9 p50=1000 p99=5000 max=6000 tickerp99=7000")
	if !ok || err != nil || a.heap != 1000 || a.stacks != 200 || !a.hasLateness || a.timers != 9 || a.p50 != 1000 || a.p99 != 5000 ||
		!a.hasTicker || a.tickerP99 != 7000 {
		t.Errorf("ours: %+v, %v, %v", a, ok, err)
	}
	a, ok, err = parseMemAnswer("mem heap=1000 stacks=200 goroutines=3")
	if !ok || err != nil || a.hasLateness || a.hasTicker || a.heap != 1000 {
		t.Errorf("a peer's: %+v, %v, %v", a, ok, err)
	}
	if _, ok, _ := parseMemAnswer("netpeers: gnet serving"); ok {
		t.Error("another line taken for an answer")
	}
	for _, bad := range []string{"mem heap=x stacks=1", "mem heap=1", "mem heap stacks=1"} {
		if _, ok, err := parseMemAnswer(bad); !ok || err == nil {
			t.Errorf("%q: %v, %v; want an answer with an error", bad, ok, err)
		}
	}
}
