//go:build !linux

package epoll

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// Available says whether this build has the driver: not here, since
// epoll(7) is Linux's only.
const Available = false

// A stub of its own per driver (afd, epoll, kqueue, netpoll and stream's are
// alike): methods are declared in their type's package, each package builds
// alone on every GOOS, and a shared stub embedded in Driver would change its
// exported fields and panic on a nil *Driver.

// Driver is a driver.Driver over epoll(7), which only Linux has. Here New
// and every method but Name, Fd and Resolution fail with an error matching
// errors.ErrUnsupported.
type Driver struct{}

var (
	errUnsupported = fmt.Errorf("epoll: %w", errors.ErrUnsupported)

	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
	_ driver.Pollable       = (*Driver)(nil)
)

func New() (*Driver, error)                                         { return nil, errUnsupported }
func (d *Driver) Name() string                                      { return "epoll" }
func (d *Driver) Fd() int                                           { return -1 }
func (d *Driver) Resolution() time.Duration                         { return time.Millisecond }
func (d *Driver) Register(int, driver.Token, driver.Interest) error { return errUnsupported }
func (d *Driver) Modify(int, driver.Token, driver.Interest) error   { return errUnsupported }
func (d *Driver) Deregister(int) error                              { return errUnsupported }
func (d *Driver) Wait([]driver.Event, time.Duration) (int, error)   { return 0, errUnsupported }
func (d *Driver) Wakeup() error                                     { return errUnsupported }
func (d *Driver) Close() error                                      { return errUnsupported }
