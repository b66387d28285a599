//go:build unix || windows

package socket

import (
	"time"

	"github.com/revoltgo/eventloop/core"
)

// setDeadline sets the deadlines of the directions r and w; a call waiting
// in one of them sees the change (core.FD.SetDeadline).
func (fd *netFD) setDeadline(t time.Time, r, w bool) error {
	if !fd.incref() {
		return fd.closedErr()
	}
	defer fd.decref()
	var mode core.Interest
	if r {
		mode |= core.Read
	}
	if w {
		mode |= core.Write
	}
	fd.pd.SetDeadline(mode, t)
	if fd.ln != nil && r {
		fd.backoffDeadline(t) // core.FD does not see the back-off's sleep
	}
	return nil
}
