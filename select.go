package eventloop

// Driver selection: the driver named by an eventloop_<name> build tag
// (driverTag, from the select_tag_*.go files), the drivers this build
// offers (platformDrivers, from the select_offered_*.go files), and a
// constructor for each name. The build tags and the platform are read in
// files picked by //go:build and declare only unexported names, so that a
// tag never changes the package's API.
//
// At most one eventloop_<name> tag may be set. Each tag file declares the
// same constant, so two tags stop the build with
// "at_most_one_eventloop_driver_build_tag redeclared".

import (
	"fmt"
	"slices"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/afd"
	"github.com/revoltgo/eventloop/drivers/epoll"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"github.com/revoltgo/eventloop/drivers/netpoll"
	"github.com/revoltgo/eventloop/drivers/stream"
)

// driverTag is the driver named by the build's eventloop_<name> tag, or ""
// if it has none. It may name a driver the build does not offer
// (eventloop_kqueue on Linux without libkqueue): NewWithDriver then reports
// it unavailable.
const driverTag = at_most_one_eventloop_driver_build_tag

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
