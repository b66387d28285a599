package core_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// timerDriver is a driver without fds: it only waits and wakes. The core's
// own tests use it so that they depend on no real driver.
type timerDriver struct {
	wake   chan struct{}
	mu     sync.Mutex
	closed bool
}

func newTimerDriver() *timerDriver { return &timerDriver{wake: make(chan struct{}, 1)} }

func (d *timerDriver) Name() string { return "timer" }

func (d *timerDriver) Register(fd int, tok core.Token, in core.Interest) error {
	return errors.ErrUnsupported
}
func (d *timerDriver) Modify(fd int, tok core.Token, in core.Interest) error {
	return errors.ErrUnsupported
}
func (d *timerDriver) Deregister(fd int) error { return errors.ErrUnsupported }

func (d *timerDriver) Wait(events []core.Event, timeout time.Duration) (int, error) {
	if timeout == 0 {
		select {
		case <-d.wake:
		default:
		}
		return 0, nil
	}
	var tc <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		tc = tm.C
	}
	select {
	case <-d.wake:
	case <-tc:
	}
	return 0, nil
}

func (d *timerDriver) Wakeup() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return core.ErrClosed
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
	return nil
}

// Close keeps the contract: afterwards Wakeup says ErrClosed, and a second
// Close is a no-op that returns nil.
func (d *timerDriver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return nil
}

// The fake drivers keep the Close sentence of the driver contract, so that
// the core's tests do not lean on a behaviour no real driver has: after
// Close, Wakeup returns an error matching ErrClosed, and a second Close is a
// no-op that returns nil.
func TestFakeDriversCloseTwice(t *testing.T) {
	for _, d := range []core.Driver{newTimerDriver(), newScriptFD()} {
		if err := d.Close(); err != nil {
			t.Errorf("%s: Close: %v", d.Name(), err)
		}
		if err := d.Wakeup(); !errors.Is(err, core.ErrClosed) {
			t.Errorf("%s: Wakeup after Close: %v, want an error matching ErrClosed", d.Name(), err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("%s: second Close: %v, want nil (a no-op)", d.Name(), err)
		}
	}
}
