//go:build !unix && !windows

package conformance

import "errors"

// Without socketpairs the soak has no fds to watch: it skips.
var soakErrNoUnix = errors.New("conformance: the soak needs unix socketpairs")

func soakSocketpair() (a, b int, err error) { return -1, -1, soakErrNoUnix }
func soakClose(int) error                   { return soakErrNoUnix }
func soakRead(int, []byte) (int, error)     { return 0, soakErrNoUnix }
func soakWrite(int, []byte) (int, error)    { return 0, soakErrNoUnix }
func soakOpenFDs() (int, error)             { return 0, soakErrNoUnix }
