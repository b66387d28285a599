//go:build !unix

package core

import (
	"fmt"
	"os"
	"runtime"
)

func checkSignal(sig os.Signal) error {
	switch runtime.GOOS {
	case "windows":
		if sig == os.Interrupt {
			return nil
		}
	}
	return fmt.Errorf("eventloop: OnSignal: %v cannot be watched on %s: %w", sig, runtime.GOOS, ErrUnsupported)
}
