//go:build solaris

package socket

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setReusePort: golang.org/x/sys/unix has no SO_REUSEPORT for Solaris and
// illumos.
func setReusePort(s int) error {
	return fmt.Errorf("socket: SO_REUSEPORT on %s: %w", "solaris", os.NewSyscallError("setsockopt", unix.ENOPROTOOPT))
}
