//go:build windows

package core_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On Windows os/signal delivers os.Interrupt (Ctrl+C, Ctrl+Break) and
// syscall.SIGTERM (the console closed, the user logged off, the system
// shutting down): OnSignal watches those two. Any other signal it refuses,
// naming it, with ErrUnsupported: nothing on Windows would ever raise it.
func TestWindowsSignals(t *testing.T) {
	l := core.New(newTimerDriver())
	defer l.Close()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		id, err := l.OnSignal(sig, func(core.CallbackID, os.Signal) {})
		require.NoError(t, err, "OnSignal(%v)", sig)
		l.Cancel(id)
	}
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGKILL, syscall.Signal(0x1e)} {
		_, err := l.OnSignal(sig, func(core.CallbackID, os.Signal) {})
		require.ErrorIs(t, err, core.ErrUnsupported, "OnSignal(%v)", sig)
		assert.Contains(t, err.Error(), sig.String())
	}
}
