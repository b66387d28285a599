//go:build aix

package selection

// The netpoll driver is not built for AIX (its poll(2) types differ from
// the other systems'), so poll(2) is all there is.
var offered = []string{"stream"}
