//go:build linux && cgo && eventloop_libkqueue

package eventloop

// kqueue over libkqueue is offered for testing; epoll stays the best.
var platformDrivers = []string{"epoll", "kqueue", "netpoll", "stream"}
