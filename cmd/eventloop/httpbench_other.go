//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io"
)

// httpBenchCmd measures HTTP servers, and ours needs a unix system.
func httpBenchCmd(opts httpOptions, stdout, stderr io.Writer) error {
	return fmt.Errorf("bench --http needs a unix system: %w", errors.ErrUnsupported)
}

func httpServeCmd(args []string, stdout io.Writer) error {
	return fmt.Errorf("httpserve needs a unix system: %w", errors.ErrUnsupported)
}
