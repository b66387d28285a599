//go:build windows

package socket

import (
	"errors"
	"fmt"
)

// errNoReusePort: Windows has no SO_REUSEPORT. Its SO_REUSEADDR is not one:
// it lets a second socket take a port over, not share it, and the
// connections are not spread between the two.
var errNoReusePort = fmt.Errorf("socket: ListenConfig.ReusePort: windows has no SO_REUSEPORT: %w", errors.ErrUnsupported)

func setReusePort(s int) error { return errNoReusePort }
