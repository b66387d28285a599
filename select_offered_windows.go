//go:build windows

package eventloop

// Sockets only, named by their SOCKET handle: AFD polls (afd), which cost
// O(ready), before WSAPoll (stream), which costs O(watched).
var platformDrivers = []string{"afd", "stream"}
