package eventloop

import (
	"runtime"
	"slices"
	"testing"

	"github.com/revoltgo/eventloop/drivers/kqueue"
)

// Each platform offers what it did when it had a file of its own listing
// its drivers, in the same order: the first is New's default.
func TestPlatformOffers(t *testing.T) {
	want := map[string][]string{
		"linux":     {"epoll", "netpoll", "stream"},
		"darwin":    {"kqueue", "netpoll", "stream"},
		"dragonfly": {"kqueue", "netpoll", "stream"},
		"freebsd":   {"kqueue", "netpoll", "stream"},
		"netbsd":    {"kqueue", "netpoll", "stream"},
		"openbsd":   {"kqueue", "netpoll", "stream"},
		"solaris":   {"netpoll", "stream"},
		"illumos":   {"netpoll", "stream"},
		"aix":       {"stream"},
		"windows":   {"afd", "stream"},
		"js":        {},
		"wasip1":    {},
		"plan9":     {},
	}[runtime.GOOS]
	if runtime.GOOS == "linux" && kqueue.Available {
		// libkqueue, for testing the driver: epoll stays the best.
		want = []string{"epoll", "kqueue", "netpoll", "stream"}
	}
	if want == nil {
		t.Fatalf("no expectation for GOOS %s; Drivers() = %v", runtime.GOOS, Drivers())
	}
	if got := Drivers(); !slices.Equal(got, want) {
		t.Fatalf("Drivers() on %s = %v, want %v", runtime.GOOS, got, want)
	}
}

// The lists the root package reads must agree with each other on every
// build: what is offered can be made and names itself by its selection
// name, and the tag names a known driver.
func TestOfferedAreKnownAndMadeByName(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Drivers() {
		if seen[name] {
			t.Errorf("%q is offered twice", name)
		}
		seen[name] = true
		if !knownDriver(name) || !offersDriver(name) {
			t.Errorf("%q is offered but knownDriver = %v, offersDriver = %v", name, knownDriver(name), offersDriver(name))
		}
		d, err := newDriver(name)
		if err != nil {
			t.Errorf("newDriver(%q): %v", name, err)
			continue
		}
		if got := d.Name(); got != name {
			t.Errorf("newDriver(%q) made a driver named %q", name, got)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close of %q: %v", name, err)
		}
	}
	if driverTag != "" && !knownDriver(driverTag) {
		t.Errorf("the build tag names %q, which is no driver", driverTag)
	}
}

func TestOfferedIsACopy(t *testing.T) {
	a := Drivers()
	if len(a) == 0 {
		t.Skip("this platform offers no driver")
	}
	a[0] = "changed"
	if slices.Contains(Drivers(), "changed") {
		t.Error("Drivers returned the package's own slice")
	}
}

func TestNewUnknownNameFails(t *testing.T) {
	if knownDriver("select") {
		t.Fatal(`"select" is known`)
	}
	d, err := newDriver("select")
	if err == nil || d != nil {
		t.Fatalf("newDriver(%q) = %v, %v; want nil and an error", "select", d, err)
	}
}
