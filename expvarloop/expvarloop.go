// Package expvarloop publishes a loop's metrics with expvar, so that a
// program that serves expvar's handler (/debug/vars) shows them. It is a
// package of its own so that importing eventloop does not bring expvar and
// net/http into every program.
//
//	expvarloop.Publish("eventloop", l)
package expvarloop

import (
	"expvar"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Publish publishes l's metrics under name as an expvar.Func, read from
// whatever goroutine serves expvar (Loop.Metrics is safe from any). Like
// expvar.Publish, it panics if name is already in use. Durations are in
// seconds; the timer lateness histogram is summed up as its count, mean,
// p50, p90, p99 and max.
func Publish(name string, l *core.Loop) {
	expvar.Publish(name, expvar.Func(func() any { return Snapshot(l) }))
}

// Snapshot is what Publish shows: l.Metrics() as a map that encodes as
// JSON.
func Snapshot(l *core.Loop) map[string]any {
	m := l.Metrics()
	byType := map[string]uint64{}
	for t := core.TypeDefer; t <= core.TypeSignal; t++ {
		byType[t.String()] = m.CallbacksByType[t]
	}
	h := &m.TimerLateness
	return map[string]any{
		"running_seconds":   sec(m.Running),
		"idle_seconds":      sec(m.Idle),
		"busy_seconds":      sec(m.Busy()),
		"utilization":       m.UtilizationSince(core.Metrics{}).Utilization,
		"ticks":             m.Ticks,
		"fd_events":         m.FDEvents,
		"events_per_tick":   m.EventsPerTick(),
		"callbacks":         m.Callbacks,
		"callbacks_by_type": byType,
		"microtasks":        m.Microtasks,
		"posts":             m.Posts,
		"posts_pending":     m.PostsPending,
		"fibers_suspended":  m.FibersSuspended,
		"timer_lateness_seconds": map[string]any{
			"count": h.Count,
			"mean":  sec(h.Mean()),
			"p50":   sec(h.Quantile(0.5)),
			"p90":   sec(h.Quantile(0.9)),
			"p99":   sec(h.Quantile(0.99)),
			"max":   sec(h.Max),
		},
		"slowest":     slowest(m.Slowest),
		"age_seconds": sec(m.Age),
	}
}

// slowest is Metrics.Slowest, or nil (JSON null) without the watchdog,
// which alone measures it.
func slowest(s core.SlowestCallback) any {
	if s.Took == 0 {
		return nil
	}
	return map[string]any{"id": s.ID.String(), "kind": s.Kind, "seconds": sec(s.Took)}
}

func sec(d time.Duration) float64 { return d.Seconds() }
