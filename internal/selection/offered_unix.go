//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !aix

package selection

// Solaris, illumos and the rest: the runtime's poller and poll(2).
var offered = []string{"netpoll", "stream"}
