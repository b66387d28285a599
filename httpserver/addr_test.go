package httpserver

import (
	"math/rand/v2"
	"net"
	"testing"
)

// A conn's remote address as requests carry it (Request.RemoteAddr) is
// the string net/http gives, addr.String(), made in one allocation.
func TestAddrString(t *testing.T) {
	addrs := []net.Addr{
		&net.TCPAddr{IP: net.IP{127, 0, 0, 1}, Port: 51000},
		&net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 80}, // 16 bytes, IPv4-mapped
		&net.TCPAddr{IP: net.ParseIP("::1"), Port: 8443},
		&net.TCPAddr{IP: net.ParseIP("::"), Port: 1},
		&net.TCPAddr{IP: net.ParseIP("2001:db8::1:0:0:1"), Port: 65535},
		&net.TCPAddr{IP: net.ParseIP("::ffff:0:1.2.3.4"), Port: 2},
		&net.TCPAddr{IP: net.ParseIP("::1.2.3.4"), Port: 3},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 4, Zone: "eth0"},
		&net.TCPAddr{IP: net.IP{1, 2, 3, 4}, Port: 5, Zone: "eth0"},
		&net.TCPAddr{Port: 6},
		&net.TCPAddr{IP: net.IP{1, 2, 3}, Port: 7},
		&net.UnixAddr{Name: "/tmp/x", Net: "unix"},
		&net.TCPAddr{IP: net.IP{127, 0, 0, 1}, Port: 70000},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		ip := make(net.IP, 16)
		for i := range ip {
			if rng.IntN(3) > 0 { // runs of zeros, which both shorten
				ip[i] = byte(rng.IntN(256))
			}
		}
		addrs = append(addrs, &net.TCPAddr{IP: ip, Port: rng.IntN(65536)})
	}
	for _, a := range addrs {
		if got, want := addrString(a), a.String(); got != want {
			t.Errorf("%#v: %q, want %q", a, got, want)
		}
	}
	for _, a := range addrs[:5] {
		if n := testing.AllocsPerRun(100, func() { addrString(a) }); n != 1 {
			t.Errorf("%v: %v allocations, want 1", a, n)
		}
	}
}
