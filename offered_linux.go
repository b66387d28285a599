//go:build linux && !(cgo && eventloop_libkqueue)

package eventloop

var offered = []string{"epoll", "netpoll", "stream"}
