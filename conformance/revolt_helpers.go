package conformance

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rvUnknownID is an id no loop issues: the stand-in for upstream's
// "nonexistent". Its table slot is far beyond any real one, so it also
// checks that lookups bound-check instead of indexing blindly.
const rvUnknownID = ^core.CallbackID(0)

func rvNoop(core.CallbackID) {}

// rvErrNoUnix is what the platform helpers return where there are no
// socketpairs or signals to raise; cases that need them skip.
var rvErrNoUnix = errors.New("conformance: not supported on this platform")

// rvSocketPair returns a connected pair of stream sockets, closed when the
// case ends. Cleanups run after the runner has closed the loop, so the loop
// never watches a closed fd, even when a case fails half-way.
func rvSocketPair(t *testing.T) (a, b int) {
	t.Helper()
	return rvSocketPairOwned(t, t)
}

// rvSocketPairOwned is rvSocketPair for a subtest t whose sockets belong to
// the case owner, to be closed only after the case's loop.
func rvSocketPairOwned(t, owner *testing.T) (a, b int) {
	t.Helper()
	a, b, err := rvRawSocketPair()
	if errors.Is(err, rvErrNoUnix) {
		t.Skip(err)
	}
	require.NoError(t, err)
	owner.Cleanup(func() {
		_ = rvClose(a)
		_ = rvClose(b)
	})
	return a, b
}

// rvKind is one of the six callback kinds of upstream's
// provideRegistrationArgs data provider.
type rvKind struct {
	name string
	typ  core.CallbackType
	// add registers a callback of the kind. Readable and writable callbacks
	// watch fds that are ready at once (upstream's STDIN/STDOUT may not be);
	// a signal callback runs only after rvRaise(rvSig1).
	add func(t *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID
}

// rvKinds lists the six kinds (five where signals cannot be raised);
// sockets they create belong to the case (tc), so they are closed after
// the loop, not when a subtest ends.
func rvKinds(tc *testing.T) []rvKind {
	kinds := []rvKind{
		{"defer", core.TypeDefer, func(_ *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			return l.Defer(fn)
		}},
		{"delay", core.TypeDelay, func(_ *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			return l.Delay(5*time.Millisecond, fn)
		}},
		{"repeat", core.TypeRepeat, func(_ *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			return l.Repeat(5*time.Millisecond, fn)
		}},
		{"readable", core.TypeReadable, func(t *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			a, b := rvSocketPairOwned(t, tc)
			require.NoError(t, rvWrite(b, []byte("trigger readability callback")))
			return l.OnReadable(a, func(id core.CallbackID, _ int) { fn(id) })
		}},
		{"writable", core.TypeWritable, func(t *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			a, _ := rvSocketPairOwned(t, tc)
			return l.OnWritable(a, func(id core.CallbackID, _ int) { fn(id) })
		}},
	}
	// The signal kind runs only after rvRaise, which needs a platform whose
	// tests can signal themselves (not Windows: see revolt_windows.go).
	if rvCanRaise {
		kinds = append(kinds, rvKind{"signal", core.TypeSignal, func(t *testing.T, l *core.Loop, fn func(core.CallbackID)) core.CallbackID {
			id, err := l.OnSignal(rvSig1, func(id core.CallbackID, _ os.Signal) { fn(id) })
			require.NoError(t, err)
			return id
		}})
	}
	return kinds
}

// rvRaisingCases are the loop cases that raise signals with rvRaise.
// Where a test cannot signal its own process (rvCanRaise false: Windows,
// whose console control events need a console that a test binary may not
// have, and would reach every process on it) LoopCases leaves them out
// rather than letting them skip.
var rvRaisingCases = []string{"OnSignalCallback", "InitiallyDisabledOnSignalCallback", "SignalExecutionOrder"}

// rvEachKind runs body once per kind as a subtest on the case's loop. Every
// subtest starts from a loop without callbacks: what one leaves behind is
// cancelled before the next starts.
func rvEachKind(tc *testing.T, l *core.Loop, body func(t *testing.T, k rvKind)) {
	for _, k := range rvKinds(tc) {
		tc.Run(k.name, func(t *testing.T) {
			defer func() {
				for _, id := range l.Identifiers() {
					l.Cancel(id)
				}
			}()
			if k.typ == core.TypeSignal {
				rvSignalCapability(t, l)
			}
			body(t, k)
		})
	}
}

// rvSignalCapability skips the test where the loop cannot watch signals,
// as upstream's checkForSignalCapability does, and otherwise guards the
// process against the signals the test raises.
func rvSignalCapability(t *testing.T, l *core.Loop) {
	t.Helper()
	rvGuardSignals(t)
	id, err := l.OnSignal(rvSig1, func(core.CallbackID, os.Signal) {})
	if errors.Is(err, core.ErrUnsupported) {
		t.Skipf("the loop cannot watch signals: %v", err)
	}
	require.NoError(t, err)
	l.Cancel(id)
}

// rvRecover runs fn and returns what it panicked with, or nil.
func rvRecover(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// rvPanicText is the message of a recovered panic value.
func rvPanicText(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return fmt.Sprint(v)
}

// rvRequirePanic requires fn to panic with a message that contains one of
// words (case-insensitive), i.e. one that names the problem.
func rvRequirePanic(t *testing.T, fn func(), words ...string) {
	t.Helper()
	v := rvRecover(fn)
	require.NotNil(t, v, "expected a panic")
	msg := strings.ToLower(rvPanicText(v))
	for _, w := range words {
		if strings.Contains(msg, strings.ToLower(w)) {
			return
		}
	}
	t.Errorf("panic %q names none of %q", rvPanicText(v), words)
}

// rvRequireUncaught requires err to be an *core.UncaughtError caused by cause.
func rvRequireUncaught(t *testing.T, err, cause error) *core.UncaughtError {
	t.Helper()
	var ue *core.UncaughtError
	require.ErrorAs(t, err, &ue)
	require.ErrorIs(t, err, cause)
	assert.Contains(t, ue.Error(), cause.Error())
	return ue
}

// rvRequireInvalid requires err to be the *core.InvalidCallbackError for id.
func rvRequireInvalid(t *testing.T, err error, id core.CallbackID) {
	t.Helper()
	require.ErrorIs(t, err, core.ErrInvalidCallback)
	var ice *core.InvalidCallbackError
	require.ErrorAs(t, err, &ice)
	assert.Equal(t, id, ice.ID)
}

// rvLog collects what callbacks print, upstream's expectOutputString.
type rvLog struct{ strings.Builder }

func (g *rvLog) print(s ...any) { fmt.Fprint(&g.Builder, s...) }
