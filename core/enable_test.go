package core_test

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A re-enabled Delay's deadline counts from Enable, not from the Delay
// call: one of 20 ms enabled at 30 ms runs after one of 45 ms made with
// it, though its first deadline was long past.
func TestEnableRestartsADelaysDeadline(t *testing.T) {
	l := newLoop(t)
	var ran []string
	a := l.Delay(20*time.Millisecond, func(core.CallbackID) { ran = append(ran, "re-enabled 20 ms") })
	l.Disable(a)
	l.Delay(30*time.Millisecond, func(core.CallbackID) {
		ran = append(ran, "enabler at 30 ms")
		assert.NoError(t, l.Enable(a))
	})
	l.Delay(45*time.Millisecond, func(core.CallbackID) { ran = append(ran, "45 ms") })
	require.NoError(t, l.Run())
	assert.Equal(t, []string{"enabler at 30 ms", "45 ms", "re-enabled 20 ms"}, ran)
}
