//go:build unix

package core

import (
	"fmt"
	"os"
	"syscall"
)

func checkSignal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("eventloop: OnSignal: %v is not a syscall.Signal: %w", sig, ErrUnsupported)
	}
	if s == syscall.SIGKILL || s == syscall.SIGSTOP {
		return fmt.Errorf("eventloop: OnSignal: %v cannot be caught: %w", sig, ErrUnsupported)
	}
	return nil
}
