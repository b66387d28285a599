//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io"
)

// echoCmd needs non-blocking sockets from golang.org/x/sys/unix.
func echoCmd(args []string, stdout io.Writer) error {
	return fmt.Errorf("echo needs a unix system: %w", errors.ErrUnsupported)
}
