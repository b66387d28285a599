package expvarloop_test

import (
	"encoding/json"
	"expvar"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/expvarloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Publish makes the metrics an expvar whose JSON carries the counters, the
// utilization and the lateness quantiles, read from another goroutine.
func TestPublish(t *testing.T) {
	l, err := eventloop.New()
	require.NoError(t, err)
	defer l.Close()
	expvarloop.Publish("eventloop_test", l)
	l.Defer(func(eventloop.CallbackID) {})
	l.Delay(time.Millisecond, func(eventloop.CallbackID) {})
	require.NoError(t, l.Run())

	v := expvar.Get("eventloop_test")
	require.NotNil(t, v)
	var got struct {
		Callbacks       uint64             `json:"callbacks"`
		CallbacksByType map[string]uint64  `json:"callbacks_by_type"`
		Utilization     float64            `json:"utilization"`
		Lateness        map[string]float64 `json:"timer_lateness_seconds"`
	}
	require.NoError(t, json.Unmarshal([]byte(v.String()), &got), v.String())
	assert.Equal(t, uint64(2), got.Callbacks)
	assert.Equal(t, uint64(1), got.CallbacksByType["defer"])
	assert.Equal(t, uint64(1), got.CallbacksByType["delay"])
	assert.Equal(t, 1.0, got.Lateness["count"])
	assert.Contains(t, got.Lateness, "p99")
	assert.GreaterOrEqual(t, got.Utilization, 0.0)
	assert.LessOrEqual(t, got.Utilization, 1.0)

	assert.Panics(t, func() { expvarloop.Publish("eventloop_test", l) }, "a name in use, as expvar.Publish")
}
