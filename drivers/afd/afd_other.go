//go:build !windows

package afd

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// Available says whether this build has the driver: not here, since AFD is
// Windows' only.
const Available = false

// errUnsupported says why: AFD is Windows'.
var errUnsupported = fmt.Errorf("afd: the AFD poll interface is Windows' only: %w", errors.ErrUnsupported)

// A stub of its own per driver (afd, epoll, kqueue, netpoll and stream's are
// alike): methods are declared in their type's package, each package builds
// alone on every GOOS, and a shared stub embedded in Driver would change its
// exported fields and panic on a nil *Driver.

// Driver exists on every system so that code naming it builds everywhere;
// here it cannot be created.
type Driver struct{}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New returns an error matching errors.ErrUnsupported.
func New() (*Driver, error) { return nil, errUnsupported }

func (*Driver) Name() string                                      { return "afd" }
func (*Driver) Resolution() time.Duration                         { return time.Millisecond }
func (*Driver) Register(int, driver.Token, driver.Interest) error { return errUnsupported }
func (*Driver) Modify(int, driver.Token, driver.Interest) error   { return errUnsupported }
func (*Driver) Deregister(int) error                              { return errUnsupported }
func (*Driver) Wait([]driver.Event, time.Duration) (int, error)   { return 0, errUnsupported }
func (*Driver) Wakeup() error                                     { return errUnsupported }
func (*Driver) Close() error                                      { return errUnsupported }
