// Package websocket is RFC 6455 WebSocket, with RFC 7692's
// permessage-deflate, on a loop of package core: a server that upgrades
// from a route of package httpserver or accepts on a socket.Listener of
// its own, and a client, both with the same Conn. An idle conn holds no
// fiber and no buffer: it waits as a served conn of package socket
// (socket.Conn.Serve), and its messages are handled in the fiber its
// bytes come in.
//
// The codec is the package's own, on the standard library alone
// (compress/flate for permessage-deflate): the module's go.mod gains no
// dependency for it.
package websocket
