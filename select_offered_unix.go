//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !aix

package eventloop

// Solaris, illumos and the rest: the runtime's poller and poll(2).
var platformDrivers = []string{"netpoll", "stream"}
