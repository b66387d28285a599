//go:build !unix && !windows

package eventloop

// No driver works where there is no poller (js, wasip1, plan9).
var platformDrivers = []string{}
