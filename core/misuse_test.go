package core_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// panicMessage runs fn and returns what it panicked with, as a string.
func panicMessage(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	fn()
	return ""
}

func TestBadInputPanicsNameTheProblem(t *testing.T) {
	l := newLoop(t)
	noop := func(core.CallbackID) {}
	assert.Contains(t, panicMessage(func() { l.Delay(-time.Second, noop) }), "Delay called with a negative duration -1s")
	assert.Contains(t, panicMessage(func() { l.Repeat(-1, noop) }), "Repeat called with a negative duration -1ns")
	assert.Contains(t, panicMessage(func() { l.OnReadable(-3, func(core.CallbackID, int) {}) }), "OnReadable called with an invalid fd -3")
	// Past what a descriptor can be; an int of 32 bits never is.
	if tooBig := int64(math.MaxInt32) + 1; int64(int(tooBig)) == tooBig {
		assert.Contains(t, panicMessage(func() { l.OnWritable(int(tooBig), func(core.CallbackID, int) {}) }), "OnWritable called with an invalid fd 2147483648")
	}
	assert.Contains(t, panicMessage(func() { l.Queue(nil) }), "Queue called with a nil func")
	assert.Contains(t, panicMessage(func() { l.Suspension().Resume(1) }), "Resume called on a Suspension that is not suspended")
	assert.Contains(t, panicMessage(func() { l.Suspension().Throw(errors.New("x")) }), "Throw called on a Suspension that is not suspended")
}

func TestUnknownIDs(t *testing.T) {
	l := newLoop(t)
	id := l.Defer(func(core.CallbackID) {})
	l.Cancel(id)
	var ice *core.InvalidCallbackError
	err := l.Enable(id)
	require.ErrorAs(t, err, &ice)
	assert.Equal(t, id, ice.ID)
	assert.ErrorIs(t, err, core.ErrInvalidCallback)
	assert.Contains(t, err.Error(), id.String())
	assert.ErrorIs(t, l.Reference(id), core.ErrInvalidCallback)
	_, err = l.Type(id)
	assert.ErrorIs(t, err, core.ErrInvalidCallback)
	l.Disable(id) // no-ops
	l.Unreference(id)
	l.Cancel(id)
	// A new callback in the same slot does not answer to the old id.
	id2 := l.Defer(func(core.CallbackID) {})
	assert.NotEqual(t, id, id2)
	_, err = l.IsEnabled(id)
	assert.ErrorIs(t, err, core.ErrInvalidCallback)
	require.NoError(t, l.Run())
}

// Suspend from a fiber other than the one that took the suspension panics,
// and inside a callback that panic comes out of Run like any other.
func TestSuspendFromAnotherFiber(t *testing.T) {
	l := newLoop(t)
	var s *core.Suspension
	l.Defer(func(core.CallbackID) {
		s = l.Suspension()
		l.Defer(func(core.CallbackID) { s.Resume(nil) })
		_, _ = s.Suspend()
	})
	l.Defer(func(core.CallbackID) {
		l.Defer(func(core.CallbackID) { _, _ = s.Suspend() })
	})
	err := l.Run()
	var u *core.UncaughtError
	require.ErrorAs(t, err, &u)
	assert.Contains(t, err.Error(), "Suspend called from a fiber other than the one that took the Suspension")
	assert.Equal(t, core.TypeDefer, u.Type)
}

func TestMethodsAfterClose(t *testing.T) {
	l := core.New(newTimerDriver())
	id := l.Defer(func(core.CallbackID) {})
	require.NoError(t, l.Close())
	require.NoError(t, l.Close())
	assert.ErrorIs(t, l.Run(), core.ErrLoopClosed)
	assert.ErrorIs(t, l.Post(func() {}), core.ErrLoopClosed)
	assert.ErrorIs(t, l.Enable(id), core.ErrLoopClosed)
	assert.ErrorIs(t, l.Reference(id), core.ErrLoopClosed)
	_, err := l.OnSignal(nil, func(core.CallbackID, os.Signal) {})
	assert.ErrorIs(t, err, core.ErrLoopClosed)
	_, err = l.Suspension().Suspend()
	assert.ErrorIs(t, err, core.ErrLoopClosed)
	assert.Contains(t, panicMessage(func() { l.Defer(func(core.CallbackID) {}) }), "Defer called after Close")
	assert.Contains(t, panicMessage(func() { l.Queue(func() {}) }), "Queue called after Close")
	l.Cancel(id) // no-ops
	l.Disable(id)
	assert.Empty(t, l.Identifiers())
}

func TestCloseFromCallback(t *testing.T) {
	l := newLoop(t)
	var err error
	l.Defer(func(core.CallbackID) { err = l.Close() })
	require.NoError(t, l.Run())
	assert.ErrorIs(t, err, core.ErrLoopRunning)
}

// Every post accepted before Close runs, in order per posting goroutine,
// even if the loop never ran.
func TestPostsBeforeCloseRunInOrder(t *testing.T) {
	l := core.New(newTimerDriver())
	const writers, each = 8, 500
	got := make([][]int, writers)
	// Each writer reports its first Post error; the checks run here, on the
	// test's goroutine (require's FailNow must not run anywhere else).
	postErr := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := l.Post(func() { got[w] = append(got[w], i) }); err != nil {
					postErr[w] = fmt.Errorf("writer %d, post %d: %w", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range postErr {
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	for w := range writers {
		require.Len(t, got[w], each)
		for i, v := range got[w] {
			require.Equal(t, i, v)
		}
	}
}

// Suspend on a suspension that is already suspended (only another fiber can
// try, the owner being suspended) panics with a message that says so, and
// Resume twice panics on the second call.
func TestSuspendTwiceAndResumeTwice(t *testing.T) {
	l := newLoop(t)
	var s *core.Suspension
	var twice, again string
	l.Defer(func(core.CallbackID) {
		s = l.Suspension()
		_, _ = s.Suspend()
	})
	l.Defer(func(core.CallbackID) {
		twice = panicMessage(func() { _, _ = s.Suspend() })
		s.Resume(1)
		again = panicMessage(func() { s.Resume(2) })
	})
	require.NoError(t, l.Run())
	assert.Contains(t, twice, "Suspend called on a Suspension that is already suspended")
	assert.Contains(t, again, "Resume called on a Suspension that is not suspended")
}
