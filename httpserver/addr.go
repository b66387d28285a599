package httpserver

import (
	"net"
	"net/netip"
)

// addrString is a.String(), for a *net.TCPAddr in one allocation instead
// of net's three; what netip would say otherwise than net (an IPv4
// address with a zone, an IP of no IP's length, a port out of range)
// goes to net.
func addrString(a net.Addr) string {
	t, ok := a.(*net.TCPAddr)
	if !ok || t.Port < 0 || t.Port > 0xffff {
		return a.String()
	}
	ip, ok := netip.AddrFromSlice(t.IP)
	if !ok {
		return a.String()
	}
	if ip = ip.Unmap(); t.Zone != "" {
		if ip.Is4() {
			return a.String()
		}
		ip = ip.WithZone(t.Zone)
	}
	var buf [64]byte
	return string(netip.AddrPortFrom(ip, uint16(t.Port)).AppendTo(buf[:0]))
}
