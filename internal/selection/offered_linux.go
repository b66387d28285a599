//go:build linux && !(cgo && eventloop_libkqueue)

package selection

var offered = []string{"epoll", "netpoll", "stream"}
