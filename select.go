package eventloop

// Driver selection: the driver named by an eventloop_<name> build tag
// (driverTag, read by package internal/driverselect), the drivers this
// build offers (platformDrivers: each driver's package says with its
// Available constant, set by its own //go:build files, whether this build
// has it), and a constructor for each name. No file here depends on a tag
// or the platform, so that neither changes the package's API.
//
// At most one eventloop_<name> tag may be set: two stop the build with
// "at_most_one_eventloop_driver_build_tag redeclared" (driverselect's doc).

import (
	"fmt"
	"slices"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/afd"
	"github.com/revoltgo/eventloop/drivers/epoll"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"github.com/revoltgo/eventloop/drivers/netpoll"
	"github.com/revoltgo/eventloop/drivers/stream"
	"github.com/revoltgo/eventloop/internal/driverselect"
)

// driverTag is the driver named by the build's eventloop_<name> tag, or ""
// if it has none. It may name a driver the build does not offer
// (eventloop_kqueue on Linux without libkqueue): NewWithDriver then reports
// it unavailable.
const driverTag = driverselect.Tag

// byPreference lists every driver, best first, with whether this build has
// it. A platform has at most one of afd, epoll and kqueue natively (Linux
// gets kqueue only over libkqueue, for testing, so epoll stays before it);
// netpoll, the runtime's poller, comes next, and poll(2) last: so Windows
// offers afd then stream (WSAPoll, O(watched)), AIX stream alone (netpoll
// is not built there), Solaris and illumos netpoll then stream, and js,
// wasip1 and plan9 nothing.
var byPreference = []struct {
	name      string
	available bool
}{
	{"afd", afd.Available},
	{"epoll", epoll.Available},
	{"kqueue", kqueue.Available},
	{"netpoll", netpoll.Available},
	{"stream", stream.Available},
}

// platformDrivers are the drivers this build offers, best first.
var platformDrivers = offered()

func offered() []string {
	names := []string{}
	for _, d := range byPreference {
		if d.available {
			names = append(names, d.name)
		}
	}
	return names
}

var constructors = map[string]func() (driver.Driver, error){
	"stream":  func() (driver.Driver, error) { return stream.New() },
	"epoll":   func() (driver.Driver, error) { return epoll.New() },
	"kqueue":  func() (driver.Driver, error) { return kqueue.New() },
	"netpoll": func() (driver.Driver, error) { return netpoll.New() },
	"afd":     func() (driver.Driver, error) { return afd.New() },
}

// knownDriver reports whether name is one of the module's drivers, whether
// this build offers it or not.
func knownDriver(name string) bool {
	_, ok := constructors[name]
	return ok
}

// offersDriver reports whether this build offers the driver name.
func offersDriver(name string) bool { return slices.Contains(platformDrivers, name) }

// newDriver makes a driver by name. For a known driver the build does not
// offer, it returns what that driver's constructor returns where its
// mechanism is missing: an error matching errors.ErrUnsupported.
func newDriver(name string) (driver.Driver, error) {
	mk, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("eventloop: unknown driver %q", name)
	}
	d, err := mk()
	if err != nil {
		return nil, err
	}
	return d, nil
}
