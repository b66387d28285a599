//go:build aix

package eventloop

// The netpoll driver is not built for AIX (its poll(2) types differ from
// the other systems'), so poll(2) is all there is.
var platformDrivers = []string{"stream"}
