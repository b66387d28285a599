//go:build windows

package core

import (
	"fmt"
	"os"
	"syscall"
)

// checkSignal lets through what os/signal delivers on Windows (its package
// doc): os.Interrupt, for Ctrl+C and Ctrl+Break, and syscall.SIGTERM, for
// the console's closing, the user's logoff and the system's shutdown.
// Nothing on Windows raises any other signal at a process.
func checkSignal(sig os.Signal) error {
	if sig == os.Interrupt || sig == syscall.SIGTERM {
		return nil
	}
	return fmt.Errorf("eventloop: OnSignal: %v cannot be watched on windows (os/signal delivers only os.Interrupt and SIGTERM there): %w", sig, ErrUnsupported)
}
