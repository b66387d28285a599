//go:build unix

package socket

import (
	"net"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// unixBadInput: the cases of TestPacketBadInput on a unixgram socket.
func unixBadInput(t *testing.T, l *core.Loop, path string, v6 *net.UDPAddr) []badInput {
	ug := listenOurs(t, l, "unixgram")
	return []badInput{
		{"udp addr to unixgram", second(ug.WriteTo([]byte("x"), v6)), []string{"[::1]:9"}, syscall.EINVAL},
		{"unix Net to unixgram", second(ug.WriteToUnix([]byte("x"), &net.UnixAddr{Name: path, Net: "unix"})), []string{path}, syscall.EAFNOSUPPORT},
		{"UDP read on unixgram", third(ug.ReadFromUDPAddrPort(nil)), []string{"unixgram"}, syscall.EINVAL},
	}
}
