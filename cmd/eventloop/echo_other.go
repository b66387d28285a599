//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io"
)

// echoCmd serves on package socket, which needs a unix system.
func echoCmd(args []string, stdout io.Writer) error {
	return fmt.Errorf("echo needs a unix system: %w", errors.ErrUnsupported)
}
