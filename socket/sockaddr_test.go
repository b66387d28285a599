//go:build unix || windows

package socket

import (
	"net"
	"reflect"
	"testing"
)

// An accepted TCP conn's two addresses are what addrOf makes of the peer's
// socket address and a copy of the listener's, in one allocation, and
// neither shares bytes with the listener's address or the other.
func TestAcceptedAddrsInOneAllocation(t *testing.T) {
	v6 := &sockaddrInet6{Port: 443}
	copy(v6.Addr[:], net.ParseIP("2001:db8::7"))
	for _, c := range []struct {
		local *net.TCPAddr
		rsa   sockaddr
	}{
		{&net.TCPAddr{IP: net.IP{127, 0, 0, 1}, Port: 8080}, &sockaddrInet4{Port: 51000, Addr: [4]byte{127, 0, 0, 9}}},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, &sockaddrInet4{Port: 1, Addr: [4]byte{10, 1, 2, 3}}}, // a 16-byte IPv4
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 8443}, v6},
		{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 8443, Zone: "7"}, v6},
	} {
		var from rawAddr
		from.fromSockaddr(c.rsa)
		l, r := acceptedAddrs(c.local, &from)
		if !reflect.DeepEqual(l, c.local) || l == net.Addr(c.local) {
			t.Errorf("local %#v, want a copy of %#v", l, c.local)
		}
		if want := addrOf(c.rsa, sockStream); !reflect.DeepEqual(r, want) {
			t.Errorf("remote %#v, want %#v", r, want)
		}
		lip, rip := l.(*net.TCPAddr).IP, r.(*net.TCPAddr).IP
		if len(lip) > 0 && &lip[0] == &c.local.IP[0] {
			t.Errorf("local %v shares the listener's bytes", l)
		}
		if cap(lip) != len(lip) || cap(rip) != len(rip) {
			t.Errorf("an append to one IP could write over the other: %v %v", l, r)
		}
		if n := testing.AllocsPerRun(100, func() { acceptedAddrs(c.local, &from) }); n != 1 {
			t.Errorf("%v allocations, want 1", n)
		}
	}
}
