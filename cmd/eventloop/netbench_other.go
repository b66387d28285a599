//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io"
)

// netBenchCmd measures the echo servers, and ours needs a unix system.
func netBenchCmd(driver string, quick, peers bool, against, format string, stdout, stderr io.Writer) error {
	return fmt.Errorf("bench --net needs a unix system: %w", errors.ErrUnsupported)
}

// netIdleCmd is bench --net's idle client, which raises RLIMIT_NOFILE.
func netIdleCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	return fmt.Errorf("netidle needs a unix system: %w", errors.ErrUnsupported)
}
