//go:build windows

package selection

// Sockets only, named by their SOCKET handle: AFD polls (afd), which cost
// O(ready), before WSAPoll (stream), which costs O(watched).
var offered = []string{"afd", "stream"}
