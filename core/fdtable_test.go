package core_test

import (
	"errors"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The loop's fd table grows to take any number it is given: a loop's first
// watcher on fd 0 (the table still empty), then one far past the table's
// end. The numbers are fake (the scripted driver never touches them).
func TestFDTableGrowsToAnyNumber(t *testing.T) {
	drv := newScriptFD()
	l := core.New(drv, core.WithoutFileIDs())
	defer l.Close()
	var registered []int
	for _, fd := range []int{0, 1000} {
		id := l.OnReadable(fd, func(core.CallbackID, int) {})
		l.Defer(func(core.CallbackID) { // the watcher is active
			if _, ok := drv.reg[fd]; ok {
				registered = append(registered, fd)
			}
			l.Cancel(id)
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	}
	if len(registered) != 2 {
		t.Fatalf("fds registered with the driver: %v, want [0 1000]", registered)
	}
}

// Once the loop has no fd registered, a busy tick makes no driver call:
// the count of registered fds comes back to 0 when the last watcher of an
// fd is cancelled and when the driver reports the fd closed.
func TestNoDriverCallOnceNoFDIsRegistered(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(map[bool]string{false: "cancelled", true: "closed"}[gone], func(t *testing.T) {
			drv := newScriptFD()
			l := core.New(drv, core.WithoutFileIDs())
			defer l.Close()
			waits, counting := 0, false
			drv.onWait = func(time.Duration, bool, []int) {
				if counting {
					waits++
				}
			}
			busyTicks := func() { // three ticks that run a callback each
				counting = true
				l.Defer(func(core.CallbackID) {
					l.Defer(func(core.CallbackID) { l.Defer(func(core.CallbackID) {}) })
				})
			}
			var reported []error
			l.SetErrorHandler(func(err error) {
				reported = append(reported, err)
				busyTicks()
			})
			id := l.OnReadable(fdBase, func(core.CallbackID, int) {})
			l.Defer(func(core.CallbackID) { // the watcher is active
				if gone {
					drv.setGone(fdBase, goneClosed) // its FDError comes to the handler
					return
				}
				l.Cancel(id)
				busyTicks()
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if gone && (len(reported) != 1 || !errors.Is(reported[0], core.ErrFDClosed)) {
				t.Fatalf("errors reported: %v, want one FDError for the closed fd", reported)
			}
			if waits != 0 {
				t.Fatalf("driver waits in the busy ticks after the fd left the loop: %d, want none", waits)
			}
		})
	}
}
