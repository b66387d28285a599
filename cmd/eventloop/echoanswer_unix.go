//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"github.com/revoltgo/eventloop/core"
)

// The echo server answers SIGUSR2 with one line on its standard output,
// for bench --net's idle table (netidlebench.go):
//
//	mem heap=BYTES stacks=BYTES goroutines=N timers=N p50=NS p99=NS max=NS
//
// heap and stacks are runtime.MemStats' HeapInuse and StackInuse after two
// collections, what socket's idle tests measure; timers to max are the
// lateness of the loops' timer callbacks (core.Metrics.TimerLateness, the
// loops merged) since the previous answer, or since the start. The
// lateness is read before the collections and marked after them, so that
// the collections an answer forces are in no window. bench/netpeers
// answers the same line without the lateness.

// answerSIGUSR2 answers SIGUSR2 on a goroutine of its own until stop.
func answerSIGUSR2(g *echoGroup, w io.Writer) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR2)
	done := make(chan struct{})
	marks := make([]core.Histogram, len(g.servers))
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-sig:
				fmt.Fprintln(w, g.answer(marks))
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
// of the previous answer, which it moves on.
func (g *echoGroup) answer(marks []core.Histogram) string {
	var late core.Histogram
	for i, s := range g.servers {
		mergeHistogram(&late, histogramSince(s.l.Metrics().TimerLateness, marks[i]))
	}
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for i, s := range g.servers {
		marks[i] = s.l.Metrics().TimerLateness
	}
	return fmt.Sprintf("mem heap=%d stacks=%d goroutines=%d timers=%d p50=%d p99=%d max=%d",
		ms.HeapInuse, ms.StackInuse, runtime.NumGoroutine(),
		late.Count, late.Quantile(0.5), late.Quantile(0.99), late.Max)
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
