package core_test

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timeoutDriver records the timeout of every Wait that may block.
type timeoutDriver struct {
	*timerDriver
	timeouts []time.Duration
}

func (d *timeoutDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if timeout != 0 {
		d.timeouts = append(d.timeouts, timeout)
	}
	return d.timerDriver.Wait(events, timeout)
}

// A tick blocks in its driver until the earliest timer is due and no
// longer (Revolt's AbstractDriver::tick: the timeout is the next timer's
// time left): a loop whose only callback is a Delay of d never asks its
// driver to wait more than d, nor forever.
func TestBlockingWaitEndsWhenTheNextTimerIsDue(t *testing.T) {
	d := &timeoutDriver{timerDriver: newTimerDriver()}
	l := core.New(d)
	defer l.Close()
	const delay = 20 * time.Millisecond
	ran := false
	l.Delay(delay, func(core.CallbackID) { ran = true })
	require.NoError(t, l.Run())
	require.True(t, ran)
	require.NotEmpty(t, d.timeouts, "the loop never blocked to wait for its timer")
	for _, to := range d.timeouts {
		assert.Greater(t, to, time.Duration(0), "a Wait with a timer due must not block forever")
		assert.LessOrEqual(t, to, delay, "a Wait longer than the time left to the only timer")
	}
}
