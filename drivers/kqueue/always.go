//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"slices"

	"github.com/revoltgo/eventloop/driver"
)

// Regular files and directories are always ready, as poll(2) reports them
// and as the driver.Driver contract asks. A kernel kqueue reports a regular
// file readable only while its offset is before the end (EVFILT_READ on a
// vnode), and libkqueue refuses one with EFAULT, so such a registration
// never enters the kqueue: every Wait reports it, and the closed-fd sweep
// finds it closed, as it finds any other.

func (d *Driver) addAlways(r *reg, in driver.Interest) {
	r.always = true
	r.setAlways(in)
	d.always = append(d.always, r)
}

func (r *reg) setAlways(in driver.Interest) { r.alwaysIn = in & (driver.Read | driver.Write) }

func (d *Driver) dropAlways(r *reg) {
	if i := slices.Index(d.always, r); i >= 0 {
		d.always = slices.Delete(d.always, i, i+1)
	}
	r.always = false
}

// reportAlways reports the always-ready registrations with an interest
// after events[:n].
func (d *Driver) reportAlways(events []driver.Event, n int) int {
	for _, r := range d.always {
		if n == len(events) {
			break
		}
		if r.alwaysIn != 0 {
			events[n] = driver.Event{Token: r.tok, Ready: r.alwaysIn}
			n++
		}
	}
	return n
}
