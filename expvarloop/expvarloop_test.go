package expvarloop_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/expvarloop"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// Publish makes the metrics an expvar whose JSON carries the counters, the
// utilization and the lateness quantiles, read from another goroutine while
// the loop runs; the slowest callback is null without the watchdog, which
// alone measures it.
func TestPublish(t *testing.T) {
	l, err := eventloop.New()
	require.NoError(t, err)
	defer l.Close()
	name := fmt.Sprintf("eventloop_test_%d", time.Now().UnixNano()) // -count=2 publishes again
	expvarloop.Publish(name, l)
	l.Defer(func(eventloop.CallbackID) {})
	l.Delay(time.Millisecond, func(eventloop.CallbackID) {})
	keep := l.Repeat(time.Hour, func(eventloop.CallbackID) {})
	ran := make(chan error, 1)
	go func() { ran <- l.Run() }()

	v := expvar.Get(name)
	require.NotNil(t, v)
	type vars struct {
		Callbacks       uint64             `json:"callbacks"`
		CallbacksByType map[string]uint64  `json:"callbacks_by_type"`
		Utilization     float64            `json:"utilization"`
		Lateness        map[string]float64 `json:"timer_lateness_seconds"`
		Slowest         *json.RawMessage   `json:"slowest"`
	}
	var got vars
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		got = vars{}
		require.NoError(t, json.Unmarshal([]byte(v.String()), &got), v.String())
		if got.Callbacks >= 2 || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, l.Post(func() { l.Cancel(keep) }))
	require.NoError(t, <-ran)
	assert.Equal(t, uint64(2), got.Callbacks)
	assert.Equal(t, uint64(1), got.CallbacksByType["defer"])
	assert.Equal(t, uint64(1), got.CallbacksByType["delay"])
	assert.Equal(t, 1.0, got.Lateness["count"])
	assert.Contains(t, got.Lateness, "p99")
	assert.GreaterOrEqual(t, got.Utilization, 0.0)
	assert.LessOrEqual(t, got.Utilization, 1.0)
	assert.Nil(t, got.Slowest, "slowest without the watchdog: %s", v.String())

	assert.Panics(t, func() { expvarloop.Publish(name, l) }, "a name in use, as expvar.Publish")
}
