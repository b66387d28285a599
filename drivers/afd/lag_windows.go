//go:build windows

package afd

import (
	"time"

	"golang.org/x/sys/windows"
)

// ReadinessLag is how long after a socket became ready its poll may
// complete (conformance.ReadinessLag): 0 on Windows, whose AFD queues the
// completion when the socket becomes ready. Wine's server instead hands a
// poll's result to the thread that submitted the poll, as an APC, and the
// completion is queued only once that thread has run it: at once when the
// thread is waiting, at its next chance to run when it is busy (on a
// loaded machine, milliseconds). wineLag bounds that with room to spare.
func (d *Driver) ReadinessLag() time.Duration {
	if d.wine {
		return wineLag
	}
	return 0
}

const wineLag = 200 * time.Millisecond

// underWine: Wine's ntdll exports wine_get_version; Windows' does not.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
