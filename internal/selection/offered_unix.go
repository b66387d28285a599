//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package selection

var offered = []string{"netpoll", "stream"}
