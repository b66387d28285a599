//go:build !linux

package epoll

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// Driver is a driver.Driver over epoll(7), which only Linux has; here every
// method fails.
type Driver struct{}

var errUnsupported = fmt.Errorf("epoll: %w", errors.ErrUnsupported)

// New returns an error matching errors.ErrUnsupported: epoll is Linux only.
func New() (*Driver, error) { return nil, errUnsupported }

// Name returns "epoll".
func (d *Driver) Name() string { return "epoll" }

// Fd returns -1.
func (d *Driver) Fd() int { return -1 }

// Resolution returns a millisecond.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register fails with errors.ErrUnsupported.
func (d *Driver) Register(int, driver.Token, driver.Interest) error { return errUnsupported }

// Modify fails with errors.ErrUnsupported.
func (d *Driver) Modify(int, driver.Token, driver.Interest) error { return errUnsupported }

// Deregister fails with errors.ErrUnsupported.
func (d *Driver) Deregister(int) error { return errUnsupported }

// Wait fails with errors.ErrUnsupported.
func (d *Driver) Wait([]driver.Event, time.Duration) (int, error) { return 0, errUnsupported }

// Wakeup fails with errors.ErrUnsupported.
func (d *Driver) Wakeup() error { return errUnsupported }

// Close fails with errors.ErrUnsupported.
func (d *Driver) Close() error { return errUnsupported }

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)
