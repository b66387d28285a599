package eventloop_test

import (
	"errors"
	"runtime"
	"slices"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDriversOffered(t *testing.T) {
	ds := eventloop.Drivers()
	if runtime.GOOS == "linux" {
		require.Contains(t, ds, "epoll")
		require.Contains(t, ds, "stream")
		require.Contains(t, ds, "netpoll")
		assert.Equal(t, "epoll", ds[0], "epoll is Linux's best")
	}
	for _, name := range ds {
		l, err := eventloop.NewWithDriver(name)
		require.NoError(t, err, name)
		assert.Equal(t, name, l.Driver().Name())
		n := 0
		l.Defer(func(core.CallbackID) { n++ })
		require.NoError(t, l.Run())
		assert.Equal(t, 1, n)
		require.NoError(t, l.Close())
	}
}

func TestEnvPicksDriver(t *testing.T) {
	for _, name := range eventloop.Drivers() {
		t.Setenv(eventloop.EnvDriver, name)
		assert.Equal(t, name, eventloop.DefaultDriver())
		assert.Equal(t, "env", eventloop.DefaultDriverReason())
		l, err := eventloop.New()
		require.NoError(t, err)
		assert.Equal(t, name, l.Driver().Name())
		require.NoError(t, l.Close())
	}
}

func TestUnknownDriverListsAvailable(t *testing.T) {
	t.Setenv(eventloop.EnvDriver, "select")
	_, err := eventloop.New()
	require.Error(t, err)
	assert.True(t, errors.Is(err, core.ErrUnsupported))
	assert.Contains(t, err.Error(), `"select" is unknown`)
	assert.Contains(t, err.Error(), eventloop.EnvDriver)
	for _, name := range eventloop.Drivers() {
		assert.Contains(t, err.Error(), name)
	}
	if !slices.Contains(eventloop.Drivers(), "kqueue") {
		_, err := eventloop.NewWithDriver("kqueue")
		assert.ErrorContains(t, err, `"kqueue" is unavailable in this build`)
	}
}

func TestDefaultIsOneLoop(t *testing.T) {
	l := eventloop.Default()
	require.Same(t, l, eventloop.Default())
	require.NoError(t, l.Run())
	require.NoError(t, l.Close())
}
