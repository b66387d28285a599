//go:build windows

package selection

// Sockets only, named by their SOCKET handle: WSAPoll (stream) is all
// Winsock offers to poll with until the afd driver lands.
var offered = []string{"stream"}
