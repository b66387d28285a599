// Package eventloop picks a driver and makes loops: the scheduler itself is
// package core, the drivers live under drivers/.
//
// New picks the driver in this order: the EVENTLOOP_DRIVER environment
// variable ("stream", "epoll", "kqueue", "netpoll"; an unknown or unavailable
// name is an error that lists the available ones), else the build tag
// eventloop_<name> (at most one), else the platform's best: epoll on Linux,
// kqueue on the BSDs and darwin, netpoll elsewhere. Drivers lists what this
// build offers, best first.
//
// kqueue is offered on Linux too when built with cgo and the tag
// eventloop_libkqueue (libkqueue, a userspace kqueue: for testing the
// driver, not for production).
package eventloop

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/epoll"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"github.com/revoltgo/eventloop/drivers/netpoll"
	"github.com/revoltgo/eventloop/drivers/stream"
)

// EnvDriver is the environment variable that names the driver New picks.
const EnvDriver = "EVENTLOOP_DRIVER"

var constructors = map[string]func() (core.Driver, error){
	"stream":  func() (core.Driver, error) { return stream.New() },
	"epoll":   func() (core.Driver, error) { return epoll.New() },
	"kqueue":  func() (core.Driver, error) { return kqueue.New() },
	"netpoll": func() (core.Driver, error) { return netpoll.New() },
}

// Drivers returns the names of the drivers this build offers, best first.
func Drivers() []string { return slices.Clone(offered) }

// DefaultDriver returns the name of the driver New would pick, and why:
// "env", "tag" or "platform".
func DefaultDriver() string {
	name, _ := pick()
	return name
}

// DefaultDriverReason says why DefaultDriver is what it is: "env" (the
// EVENTLOOP_DRIVER variable), "tag" (an eventloop_<name> build tag) or
// "platform".
func DefaultDriverReason() string {
	_, why := pick()
	return why
}

func pick() (name, why string) {
	if env := os.Getenv(EnvDriver); env != "" {
		return env, "env"
	}
	if tagDriver != "" {
		return tagDriver, "tag"
	}
	if len(offered) == 0 {
		return "", "platform"
	}
	return offered[0], "platform"
}

// New returns a loop on the driver picked as the package doc says.
func New(opts ...core.Option) (*core.Loop, error) {
	name, why := pick()
	if name == "" {
		return nil, fmt.Errorf("eventloop: no driver is available on this platform: %w", core.ErrUnsupported)
	}
	l, err := NewWithDriver(name, opts...)
	if err != nil && why == "env" {
		return nil, fmt.Errorf("%w (from %s)", err, EnvDriver)
	}
	return l, err
}

// NewWithDriver returns a loop on the named driver: "stream", "epoll",
// "kqueue" or "netpoll".
func NewWithDriver(name string, opts ...core.Option) (*core.Loop, error) {
	mk, ok := constructors[name]
	if !ok || !slices.Contains(offered, name) {
		what := "unknown"
		if ok {
			what = "unavailable in this build"
		}
		return nil, fmt.Errorf("eventloop: driver %q is %s; available: %s: %w",
			name, what, strings.Join(offered, ", "), core.ErrUnsupported)
	}
	d, err := mk()
	if err != nil {
		return nil, fmt.Errorf("eventloop: driver %q: %w", name, err)
	}
	return core.New(d, opts...), nil
}

var (
	defaultOnce sync.Once
	defaultLoop *core.Loop
)

// Default returns the process-wide loop, made by New on first use (Revolt's
// static EventLoop facade). It panics if New fails, e.g. on an unknown
// EVENTLOOP_DRIVER: there is no loop to return.
func Default() *core.Loop {
	defaultOnce.Do(func() {
		l, err := New()
		if err != nil {
			panic(err)
		}
		defaultLoop = l
	})
	return defaultLoop
}
