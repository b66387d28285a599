//go:build linux && cgo && eventloop_libkqueue

package selection

// kqueue over libkqueue is offered for testing; epoll stays the best.
var offered = []string{"epoll", "kqueue", "netpoll", "stream"}
