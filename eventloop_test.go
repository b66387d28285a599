package eventloop_test

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

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
	require.Same(t, l, eventloop.Default(), "after a Run")
	require.NoError(t, l.Close())
}

// A closed default loop is replaced, empty, by the next Default call.
func TestDefaultAfterCloseIsANewLoop(t *testing.T) {
	old := eventloop.Default()
	ran := 0
	old.Defer(func(core.CallbackID) { ran++ })
	require.NoError(t, old.Close())

	l := eventloop.Default()
	require.NotSame(t, old, l, "Default returned the closed loop")
	require.Same(t, l, eventloop.Default())
	assert.Empty(t, l.Identifiers(), "the new loop starts empty")
	l.Defer(func(core.CallbackID) { ran += 10 })
	require.NoError(t, l.Run())
	assert.Equal(t, 10, ran, "only the new loop's defer ran")
	require.Same(t, l, eventloop.Default())
	require.NoError(t, l.Close())
}

// Default from many goroutines at once returns one loop; called while
// another goroutine closes the default loop again and again, it never
// returns nil and, once the closing stops, returns an open loop. Run with
// -race, this is the goroutine-safety of Default's own state.
func TestDefaultFromManyGoroutines(t *testing.T) {
	const goroutines, calls, closes = 8, 200, 50
	first := eventloop.Default()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			for range calls {
				if l := eventloop.Default(); l != first {
					t.Errorf("Default returned %p, then %p, with no Close in between", first, l)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()

	done := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if eventloop.Default() == nil {
					t.Error("Default returned nil")
					return
				}
			}
		})
	}
	for range closes {
		require.NoError(t, eventloop.Default().Close())
	}
	close(done)
	wg.Wait()

	l := eventloop.Default()
	require.NotSame(t, first, l)
	ran := false
	l.Defer(func(core.CallbackID) { ran = true })
	require.NoError(t, l.Run())
	assert.True(t, ran, "the default loop after the closes runs")
	require.NoError(t, l.Close())
}

// Default cannot return an error: when New fails it panics with one that
// names the cause, and keeps nothing, so that the next call tries again.
func TestDefaultPanicsNamingTheCause(t *testing.T) {
	require.NoError(t, eventloop.Default().Close())
	t.Setenv(eventloop.EnvDriver, "select")
	v := func() (v any) {
		defer func() { v = recover() }()
		eventloop.Default()
		return nil
	}()
	require.NotNil(t, v, "Default did not panic with EVENTLOOP_DRIVER=select")
	err, ok := v.(error)
	require.True(t, ok, "panic value %#v is not an error", v)
	assert.True(t, strings.HasPrefix(err.Error(), "eventloop.Default: "), err.Error())
	assert.Contains(t, err.Error(), `"select" is unknown`)
	assert.Contains(t, err.Error(), eventloop.EnvDriver)
	assert.ErrorIs(t, err, core.ErrUnsupported)

	t.Setenv(eventloop.EnvDriver, "")
	l := eventloop.Default()
	require.NotNil(t, l)
	require.NoError(t, l.Close())
}

// envExpectDriver names the driver that the build's eventloop_<name> tag
// should make New pick; the tag cells of ci/test.sh set it. A tagged build
// without it fails TestTagPicksDriver, and so does an untagged build with
// it, so that a cell whose tag was lost or misspelt cannot pass.
const envExpectDriver = "EVENTLOOP_EXPECT_DRIVER"

// TestTagPicksDriver pins the middle rule of the package doc: with
// EVENTLOOP_DRIVER unset, the build tag eventloop_<name> picks the driver.
// A build with neither tag nor expectation pins the last rule instead: the
// platform's best.
func TestTagPicksDriver(t *testing.T) {
	want := os.Getenv(envExpectDriver)
	t.Setenv(eventloop.EnvDriver, "") // the tag decides, not the environment
	got, why := eventloop.DefaultDriver(), eventloop.DefaultDriverReason()
	switch {
	case want == "" && why == "tag":
		t.Fatalf("this build's tag picks %q but %s is unset: set it to the driver the tag should pick", got, envExpectDriver)
	case want == "":
		require.Equal(t, "platform", why)
		ds := eventloop.Drivers()
		if len(ds) == 0 {
			require.Empty(t, got, "no driver offered, yet one picked")
			return
		}
		want = ds[0]
	case why != "tag":
		t.Fatalf("%s=%s but this build has no eventloop_<name> tag: New picks %q (%s)", envExpectDriver, want, got, why)
	}
	require.Equal(t, want, got, "DefaultDriver (%s)", why)
	l, err := eventloop.New()
	require.NoError(t, err)
	defer l.Close()
	assert.Equal(t, want, l.Driver().Name())
}
