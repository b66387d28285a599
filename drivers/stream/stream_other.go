//go:build !unix && !windows

package stream

import (
	"errors"
	"fmt"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// errUnsupported says why: there is no poll(2) on this system.
var errUnsupported = fmt.Errorf("stream: poll(2) is not available on this system: %w", errors.ErrUnsupported)

// Driver exists on every system so that code naming it builds everywhere;
// here it cannot be created.
type Driver struct{}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New returns an error matching errors.ErrUnsupported.
func New() (*Driver, error) { return nil, errUnsupported }

func (*Driver) Name() string                                      { return "stream" }
func (*Driver) Resolution() time.Duration                         { return time.Millisecond }
func (*Driver) Register(int, driver.Token, driver.Interest) error { return errUnsupported }
func (*Driver) Modify(int, driver.Token, driver.Interest) error   { return errUnsupported }
func (*Driver) Deregister(int) error                              { return errUnsupported }
func (*Driver) Wait([]driver.Event, time.Duration) (int, error)   { return 0, errUnsupported }
func (*Driver) Wakeup() error                                     { return errUnsupported }
func (*Driver) Close() error                                      { return errUnsupported }
