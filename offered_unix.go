//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package eventloop

var offered = []string{"netpoll", "stream"}
