//go:build windows

package socket

import (
	"errors"
	"net"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// unixBadInput: the cases of TestPacketBadInput for unix sockets, which
// Windows does not offer (sys_windows.go says why): every constructor of
// a unix network fails with an error that names AF_UNIX and matches
// errors.ErrUnsupported.
func unixBadInput(t *testing.T, l *core.Loop, path string, v6 *net.UDPAddr) []badInput {
	return []badInput{
		{"ListenPacket unixgram", second(ListenPacket(l, "unixgram", path)), []string{"listen unixgram", path, "AF_UNIX"}, errors.ErrUnsupported},
		{"Listen unix", second(Listen(l, "unix", path)), []string{"listen unix", path, "AF_UNIX"}, errors.ErrUnsupported},
		{"Dial unix", second(Dial(l, "unix", path)), []string{"dial unix", path, "AF_UNIX"}, errors.ErrUnsupported},
		{"Dial unixgram", second(Dial(l, "unixgram", path)), []string{"dial unixgram", path, "AF_UNIX"}, errors.ErrUnsupported},
	}
}
