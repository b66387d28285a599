package core_test

import (
	"testing"

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
