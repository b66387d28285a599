// Package selection is what package eventloop picks a driver from: the
// driver named by an eventloop_<name> build tag (Tag), the drivers this
// build offers (Offered), and a constructor for each name (New). The build
// tags and the platform are read here, in files picked by //go:build, so
// that the root package has no build-constrained file and a tag never
// changes its API.
//
// At most one eventloop_<name> tag may be set. Each tag file declares the
// same constant, so two tags stop the build with
// "at_most_one_eventloop_driver_build_tag redeclared".
//
// kqueue is offered on Linux too when built with cgo and the tag
// eventloop_libkqueue (libkqueue, a userspace kqueue: for testing the
// driver, not for production); epoll stays the best there.
package selection

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

// Tag is the driver named by the build's eventloop_<name> tag, or "" if it
// has none. It may name a driver the build does not offer (eventloop_kqueue
// on Linux without libkqueue): New then reports it unavailable.
const Tag = at_most_one_eventloop_driver_build_tag

var constructors = map[string]func() (driver.Driver, error){
	"stream":  func() (driver.Driver, error) { return stream.New() },
	"epoll":   func() (driver.Driver, error) { return epoll.New() },
	"kqueue":  func() (driver.Driver, error) { return kqueue.New() },
	"netpoll": func() (driver.Driver, error) { return netpoll.New() },
	"afd":     func() (driver.Driver, error) { return afd.New() },
}

// Known reports whether name is one of the module's drivers, whether this
// build offers it or not.
func Known(name string) bool {
	_, ok := constructors[name]
	return ok
}

// Offered returns the names of the drivers this build offers, best first,
// in a slice of the caller's.
func Offered() []string { return slices.Clone(offered) }

// Offers reports whether this build offers the driver name.
func Offers(name string) bool { return slices.Contains(offered, name) }

// New makes a driver by name. For a known driver the build does not offer,
// it returns what that driver's constructor returns where its mechanism is
// missing: an error matching errors.ErrUnsupported.
func New(name string) (driver.Driver, error) {
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
