//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import "github.com/revoltgo/eventloop/driver"

// reportAlways reports regular files and directories after events[:n]:
// they are always ready, as poll(2) has them. A kernel kqueue reports a
// regular file readable only before its end, and libkqueue refuses one
// with EFAULT, so they never enter the kqueue. They are rare, and keep the
// loop from blocking while watched: a walk over every registration then
// costs little.
func (d *Driver) reportAlways(events []driver.Event, n int) int {
	if d.always == 0 {
		return n
	}
	for _, r := range d.regs {
		if r.always && r.in != 0 && n < len(events) {
			events[n] = driver.Event{Token: r.tok, Ready: r.in}
			n++
		}
	}
	return n
}
