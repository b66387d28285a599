//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The echo server answers SIGUSR2 with one line on its standard output,
// for bench --net's idle table (netidlebench.go):
//
//	mem heap=BYTES stacks=BYTES goroutines=N timers=N p50=NS p99=NS max=NS [tickerp99=NS]
//
// heap and stacks are runtime.MemStats' HeapInuse and StackInuse after two
// collections, what socket's idle tests measure; timers to max are the
// lateness of the loops' timer callbacks (core.Metrics.TimerLateness, the
// loops merged) since the previous answer, or since the start. With
// --timer, tickerp99 is the p99 of the lateness of a time.Ticker of the
// same interval on a goroutine of its own over the same window: a control,
// what the machine and Go's scheduler make any goroutine wait, which the
// loop cannot do better than. The lateness is read before the collections
// and marked after them, so that the collections an answer forces are in
// no window. bench/netpeers answers the same line without the lateness.

// answerSIGUSR2 answers SIGUSR2 on a goroutine of its own until stop;
// timer, if not 0, is the interval of the control ticker.
func answerSIGUSR2(g *echoGroup, w io.Writer, timer time.Duration) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	done := make(chan struct{})
	marks := make([]core.Histogram, len(g.servers))
	var ctl *tickerControl
	var wg sync.WaitGroup
	if timer > 0 {
		ctl = &tickerControl{}
		wg.Go(func() { ctl.run(timer, done) })
	}
	wg.Go(func() {
		for {
			select {
			case <-sig:
				fmt.Fprintln(w, g.answer(marks, ctl))
			case <-done:
				return
			}
		}
	})
	return func() {
		signal.Stop(sig)
		close(done)
		wg.Wait()
	}
}

// answer is the line answering SIGUSR2; marks are the loops' lateness as
// of the previous answer, which it moves on, and ctl the control ticker
// (nil: none).
func (g *echoGroup) answer(marks []core.Histogram, ctl *tickerControl) string {
	var late core.Histogram
	for i, s := range g.servers {
		mergeHistogram(&late, histogramSince(s.l.Metrics().TimerLateness, marks[i]))
	}
	ticks := ctl.take()
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for i, s := range g.servers {
		marks[i] = s.l.Metrics().TimerLateness
	}
	ctl.take()
	line := fmt.Sprintf("mem heap=%d stacks=%d goroutines=%d timers=%d p50=%d p99=%d max=%d",
		ms.HeapInuse, ms.StackInuse, runtime.NumGoroutine(),
		late.Count, late.Quantile(0.5), late.Quantile(0.99), late.Max)
	if len(ticks) > 0 {
		slices.Sort(ticks)
		line += fmt.Sprintf(" tickerp99=%d", quantileOf(ticks, 0.99))
	}
	return line
}

// tickerControl is the control ticker's lateness since it was last taken.
type tickerControl struct {
	mu   sync.Mutex
	late []time.Duration
}

// run ticks every d until done, recording how late each tick came: a
// ticker's channel carries the time the tick was due.
func (c *tickerControl) run(d time.Duration, done <-chan struct{}) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case due := <-t.C:
			late := time.Since(due)
			c.mu.Lock()
			c.late = append(c.late, late)
			c.mu.Unlock()
		case <-done:
			return
		}
	}
}

// take returns the lateness recorded since the last take (nil from a nil
// control).
func (c *tickerControl) take() []time.Duration {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.late
	c.late = nil
	return l
}

// histogramSince is what cur, a histogram's reading, holds beyond mark,
// an earlier reading of the same one. Max is over the histogram's life:
// it is the window's if it grew in it; else the window's lies in its top
// bucket, whose upper bound (at most Max) stands for it, as Quantile
// rounds up to a bucket's bound.
func histogramSince(cur, mark core.Histogram) core.Histogram {
	d := core.Histogram{Count: cur.Count - mark.Count, Sum: cur.Sum - mark.Sum}
	top := -1
	for i := range d.Buckets {
		if d.Buckets[i] = cur.Buckets[i] - mark.Buckets[i]; d.Buckets[i] > 0 {
			top = i
		}
	}
	switch {
	case cur.Max > mark.Max:
		d.Max = cur.Max
	case top >= 0:
		_, hi := core.BucketBounds(top)
		d.Max = min(hi, cur.Max)
	}
	return d
}

// mergeHistogram adds h's samples to dst.
func mergeHistogram(dst *core.Histogram, h core.Histogram) {
	dst.Count += h.Count
	dst.Sum += h.Sum
	dst.Max = max(dst.Max, h.Max)
	for i, n := range h.Buckets {
		dst.Buckets[i] += n
	}
}

// lockedWriter writes whole lines from several goroutines (the ready
// line, the answers, the final report) without mixing them.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
