//go:build !unix && !windows

package conformance

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// Without socketpairs or signals to send, the fd and signal faults have
// nothing to run on.
func faultFdCases() []Case { return nil }

// faultPingPong has no fd to bounce bytes over here: it reports the bytes
// as read at once, so the rest of each loop's work still runs.
func faultPingPong(*testing.T) func(l *core.Loop, n int, done func(got int)) {
	return func(_ *core.Loop, n int, done func(int)) { done(n) }
}
