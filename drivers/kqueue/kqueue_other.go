//go:build !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !(linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

var errUnsupported = fmt.Errorf("kqueue driver: no kqueue in this build (BSD and darwin only; on Linux build with cgo and the tag eventloop_libkqueue): %w", errors.ErrUnsupported)

// Driver has the same API in every build; here New fails with an error
// matching errors.ErrUnsupported.
type Driver struct{}

func New() (*Driver, error)                                                   { return nil, errUnsupported }
func (d *Driver) Name() string                                                { return "kqueue" }
func (d *Driver) Fd() int                                                     { return -1 }
func (d *Driver) Resolution() time.Duration                                   { return time.Nanosecond }
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error { return errUnsupported }
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error   { return errUnsupported }
func (d *Driver) Deregister(fd int) error                                     { return errUnsupported }
func (d *Driver) Wakeup() error                                               { return errUnsupported }
func (d *Driver) Close() error                                                { return errUnsupported }
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	return 0, errUnsupported
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
	_ driver.Pollable       = (*Driver)(nil)
)
