//go:build !unix && !windows

package core

import (
	"fmt"
	"os"
	"runtime"
)

func checkSignal(sig os.Signal) error {
	return fmt.Errorf("eventloop: OnSignal: %v cannot be watched on %s: %w", sig, runtime.GOOS, ErrUnsupported)
}
