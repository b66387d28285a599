//go:build !unix && !windows

package conformance

import (
	"os"
	"testing"
)

// Where there are no socketpairs or signals to raise, the cases that need
// them skip; the rest of the suite still runs.
var (
	rvSig1 os.Signal
	rvSig2 os.Signal
)

const rvCanRaise = false

func rvRaise(os.Signal) error { return rvErrNoUnix }

func rvGuardSignals(t *testing.T) { t.Skip("no signals to raise on this platform") }

func rvRawSocketPair() (a, b int, err error) { return -1, -1, rvErrNoUnix }

func rvClose(int) error { return rvErrNoUnix }

func rvWrite(int, []byte) error { return rvErrNoUnix }

func rvRefusedConnect(t *testing.T) int {
	t.Skip("no non-blocking connect on this platform")
	return -1
}
