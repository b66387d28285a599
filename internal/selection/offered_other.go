//go:build !unix

package selection

// No driver works where file descriptors are not ints (windows) or there is
// no poller (js, wasip1, plan9).
var offered = []string{}
