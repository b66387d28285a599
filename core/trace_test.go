package core_test

import (
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func registerWaiter(l *core.Loop) core.CallbackID {
	return l.Defer(func(core.CallbackID) { _, _ = l.Suspension().Suspend() })
}

func TestDeadlockNamesCreationSitesWithTracing(t *testing.T) {
	l := newLoop(t, core.WithTracing())
	registerWaiter(l)
	l.Repeat(1e9, func(core.CallbackID) {}) // left behind, unreferenced
	for _, id := range l.Identifiers() {
		if typ, _ := l.Type(id); typ == core.TypeRepeat {
			l.Unreference(id)
		}
	}
	_, err := l.Suspension().Suspend()
	require.ErrorIs(t, err, core.ErrDeadlock)
	msg := err.Error()
	assert.Contains(t, msg, "fiber", msg)
	assert.Contains(t, msg, "in a callback created at:")
	assert.Contains(t, msg, "registerWaiter", "the suspended fiber's callback was registered there")
	assert.Contains(t, msg, "callback cb2 (repeat, enabled=true, referenced=false) created at:")
	assert.Contains(t, msg, "TestDeadlockNamesCreationSitesWithTracing")
}

func TestDumpFromMainAndFromCallback(t *testing.T) {
	t.Setenv(core.EnvDebugTrace, "1")
	l := newLoop(t)
	registerWaiter(l)
	var inside string
	l.Defer(func(core.CallbackID) { inside = l.Dump() })
	require.NoError(t, l.Run())
	for _, d := range []string{inside, l.Dump()} {
		assert.Contains(t, d, "fiber")
		assert.Contains(t, d, "suspended:")
		assert.Contains(t, d, "registerWaiter")
	}
	assert.True(t, strings.HasPrefix(l.Dump(), "eventloop: driver timer"))
}

// Without tracing, Dump still lists callbacks and suspended fibers, but no
// creation sites.
func TestDumpWithoutTracing(t *testing.T) {
	l := newLoop(t)
	registerWaiter(l)
	id := l.Delay(1e9, func(core.CallbackID) {})
	l.Unreference(id)
	require.NoError(t, l.Run())
	d := l.Dump()
	assert.Contains(t, d, "callback "+id.String()+" (delay, enabled=true, referenced=false)")
	assert.Contains(t, d, "suspended:")
	assert.NotContains(t, d, "created at")
}
