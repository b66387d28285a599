// Package winsock holds the few Winsock calls that the Windows drivers, the
// shared waker, the core and the conformance suite make on Windows and that
// golang.org/x/sys/windows does not wrap: WSAPoll, accept, ioctlsocket,
// recv and send, and a connected loopback pair of non-blocking TCP sockets,
// which stands in on Windows for the socketpairs and pipes Unix has (Winsock
// has neither, and WSAPoll and AFD watch sockets only).
//
// A socket is named by its SOCKET handle converted to int, as the loop's
// fd-based API takes it. Elsewhere than Windows the package is empty.
package winsock
