//go:build unix || windows

package conformance

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// driverFactoryCases are driver-level cases that make their own drivers:
// the contract's sentences about more than one driver, or about what a
// driver leaves behind when it is gone.
func driverFactoryCases() []driverFactoryCase {
	return []driverFactoryCase{
		// "No globals: two drivers in one process never interfere."
		{"TwoDriversDoNotInterfere", dcTwoDrivers},
		// "Close releases every kernel object."
		{"CloseReleasesKernelObjects", dcCloseReleases},
	}
}

func dcTwoDrivers(t *testing.T, newDriver func() (core.Driver, error)) {
	d1 := dcNewDriver(t, newDriver)
	d2 := dcNewDriver(t, newDriver)
	// A Wakeup wakes its own driver only. Checked while no fd is registered:
	// a driver that checks its fds for closure (epoll, kqueue) may return
	// early while it watches some, which the contract allows.
	if err := d1.Wakeup(); err != nil {
		t.Fatalf("Wakeup: %v", err)
	}
	dcExpectWaits(t, d2, "on a driver whose neighbour was woken", 30*time.Millisecond)
	if r := dcMust(t, d1, make([]core.Event, 8), -1); r.took > dcHang {
		t.Errorf("Wait(-1) after Wakeup took %v", r.took)
	}

	f := dcNewFds(t)
	a, b := f.pair()
	c, e := f.pair()
	dcRegister(t, d1, a, 1, core.Read)
	dcRegister(t, d2, c, 2, core.Read)
	// The same fd in both: a table shared between drivers would refuse it.
	dcRegister(t, d2, a, 3, core.Read)
	dcDeregister(t, d2, a)

	dcWrite(t, b, "x")
	dcExpectNow(t, d1, 1, core.Read, time.Second)
	dcExpectNone(t, d2, 20*time.Millisecond)
	dcDrain(t, a)

	// Closing one leaves the other working.
	if err := d1.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	dcWrite(t, e, "x")
	dcExpectNow(t, d2, 2, core.Read, time.Second)
	if err := d2.Wakeup(); err != nil {
		t.Fatalf("Wakeup of the driver still open: %v", err)
	}
}

func dcCloseReleases(t *testing.T, newDriver func() (core.Driver, error)) {
	// Drivers take the lowest free numbers, so a scan of the first few
	// thousand finds whatever New opened.
	const scan = 4096
	before := dcOpenFds(scan)
	d, err := newDriver()
	if err != nil {
		t.Fatalf("new driver: %v", err)
	}
	var opened []int
	for fd, open := range dcOpenFds(scan) {
		if open && !before[fd] {
			opened = append(opened, fd)
		}
	}
	// Use it, in case it opens things lazily.
	f := dcNewFds(t)
	a, _ := f.pair()
	dcRegister(t, d, a, 1, core.Write)
	dcExpectNow(t, d, 1, core.Write, time.Second)
	if err := d.Wakeup(); err != nil {
		t.Fatalf("Wakeup: %v", err)
	}
	dcMust(t, d, make([]core.Event, 8), 0)
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, fd := range opened {
		if dcIsOpen(fd) {
			t.Errorf("fd %d, opened by New, is still open after Close", fd)
		}
	}
}

func dcOpenFds(n int) []bool {
	open := make([]bool, n)
	for fd := range open {
		open[fd] = dcIsOpen(fd)
	}
	return open
}
