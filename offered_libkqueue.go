//go:build linux && cgo && eventloop_libkqueue

package eventloop

// kqueue over libkqueue is offered for testing; epoll stays the best.
var offered = []string{"epoll", "kqueue", "netpoll", "stream"}
