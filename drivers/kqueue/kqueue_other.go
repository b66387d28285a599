//go:build !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !(linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// Available says whether this build has the driver: not here (kqueue is
// the BSDs' and darwin's; Linux has it only with cgo and the tag
// eventloop_libkqueue).
const Available = false

var errUnsupported = fmt.Errorf("kqueue driver: no kqueue in this build (BSD and darwin only; on Linux build with cgo and the tag eventloop_libkqueue): %w", errors.ErrUnsupported)

// A stub of its own per driver (afd, epoll, kqueue, netpoll and stream's are
// alike): methods are declared in their type's package, each package builds
// alone on every GOOS, and a shared stub embedded in Driver would change its
// exported fields and panic on a nil *Driver.

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
