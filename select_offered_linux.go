//go:build linux && !(cgo && eventloop_libkqueue)

package eventloop

var platformDrivers = []string{"epoll", "netpoll", "stream"}
