//go:build !unix

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// echoCmd: the echo server's loops share its port with SO_REUSEPORT, which
// Windows lacks (package socket itself serves there).
func echoCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return fmt.Errorf("echo runs on Unix (its loops share a port with SO_REUSEPORT): %w", errors.ErrUnsupported)
}
