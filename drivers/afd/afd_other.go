//go:build !windows

package afd

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// errUnsupported says why: AFD is Windows'.
var errUnsupported = fmt.Errorf("afd: the AFD poll interface is Windows' only: %w", errors.ErrUnsupported)

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
