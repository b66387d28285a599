package eventloop_test

import (
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// EVENTLOOP_DEBUG_SLOW that is not a duration of 0 or more: New and
// NewWithDriver return an error naming the variable and the value (core.New
// cannot, and ignores it). 0 is off, as unset.
func TestBadDebugSlowIsAnError(t *testing.T) {
	t.Setenv(eventloop.EnvDebugSlow, "0")
	l, err := eventloop.New()
	require.NoError(t, err, "0 is off")
	l.Defer(func(eventloop.CallbackID) {})
	require.NoError(t, l.Run())
	assert.Empty(t, l.Metrics().Slowest.Kind, "0: the watchdog is off, callbacks are not timed")
	require.NoError(t, l.Close())
	for _, bad := range []string{"fast", "-1s"} {
		t.Setenv(eventloop.EnvDebugSlow, bad)
		_, err := eventloop.New()
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), eventloop.EnvDebugSlow)
		assert.Contains(t, err.Error(), `"`+bad+`"`)
		assert.NotContains(t, err.Error(), eventloop.EnvDriver, "not blamed on the driver variable")
		_, err = eventloop.NewWithDriver(eventloop.DefaultDriver())
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), eventloop.EnvDebugSlow)
	}
	t.Setenv(eventloop.EnvDebugSlow, "250ms")
	l, err = eventloop.New()
	require.NoError(t, err)
	l.Defer(func(eventloop.CallbackID) {})
	require.NoError(t, l.Run())
	assert.Equal(t, "defer", l.Metrics().Slowest.Kind, "the watchdog is on: callbacks are timed")
	require.NoError(t, l.Close())
}

// EVENTLOOP_BLOCKED that is none of 0, 1, off, on, false, true: New and
// NewWithDriver return an error naming the variable and the value (core.New
// cannot, and leaves the report on).
func TestBadBlockedIsAnError(t *testing.T) {
	for _, good := range []string{"0", "off", "1", "on", "TRUE", ""} {
		t.Setenv(eventloop.EnvBlocked, good)
		l, err := eventloop.New()
		require.NoError(t, err, good)
		require.NoError(t, l.Close())
	}
	for _, bad := range []string{"no", "2"} {
		t.Setenv(eventloop.EnvBlocked, bad)
		_, err := eventloop.New()
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), eventloop.EnvBlocked)
		assert.Contains(t, err.Error(), `"`+bad+`"`)
		_, err = eventloop.NewWithDriver(eventloop.DefaultDriver())
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), eventloop.EnvBlocked)
	}
}
