//go:build !unix && !windows

package selection

// No driver works where there is no poller (js, wasip1, plan9).
var offered = []string{}
