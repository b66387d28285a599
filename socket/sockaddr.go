//go:build unix || windows

package socket

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"unsafe"
)

// addrOf converts a socket address to the net.Addr that net's conns give
// for a socket of sotype: *net.TCPAddr or *net.UDPAddr, *net.UnixAddr
// with Net "unix" or "unixgram"; nil for an unnamed unix socket.
func addrOf(sa sockaddr, sotype int) net.Addr {
	dgram := sotype == sockDgram
	switch a := sa.(type) {
	case *sockaddrInet4:
		ip := net.IP{a.Addr[0], a.Addr[1], a.Addr[2], a.Addr[3]} // four bytes, as net's
		if dgram {
			return &net.UDPAddr{IP: ip, Port: a.Port}
		}
		return &net.TCPAddr{IP: ip, Port: a.Port}
	case *sockaddrInet6:
		ip := make(net.IP, net.IPv6len)
		copy(ip, a.Addr[:])
		if dgram {
			return &net.UDPAddr{IP: ip, Port: a.Port, Zone: zoneName(a.ZoneId)}
		}
		return &net.TCPAddr{IP: ip, Port: a.Port, Zone: zoneName(a.ZoneId)}
	case *sockaddrUnix:
		if a.Name == "" {
			return nil // an unnamed socket, as net reports it
		}
		return &net.UnixAddr{Name: a.Name, Net: unixNet(sotype)}
	}
	return nil
}

// unixNet is net's name of a unix socket of sotype.
func unixNet(sotype int) string {
	if sotype == sockDgram {
		return "unixgram"
	}
	return "unix"
}

func zoneName(id uint32) string {
	if id == 0 {
		return ""
	}
	if ifi, err := net.InterfaceByIndex(int(id)); err == nil {
		return ifi.Name
	}
	return strconv.FormatUint(uint64(id), 10)
}

func zoneID(zone string) uint32 {
	if zone == "" {
		return 0
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return uint32(ifi.Index)
	}
	n, _ := strconv.ParseUint(zone, 10, 32)
	return uint32(n)
}

// inetSockaddr is the socket address of ap in family (AF_INET or
// AF_INET6); an invalid address is the family's unspecified one.
func inetSockaddr(family int, ap netip.AddrPort) (sockaddr, error) {
	ip := ap.Addr()
	switch family {
	case afInet:
		if !ip.IsValid() {
			ip = netip.IPv4Unspecified()
		}
		ip = ip.Unmap()
		if !ip.Is4() {
			return nil, &net.AddrError{Err: "non-IPv4 address", Addr: ip.String()}
		}
		return &sockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()}, nil
	case afInet6:
		if !ip.IsValid() {
			ip = netip.IPv6Unspecified()
		}
		// A v4 address on a dual-stack socket is written v4-mapped, except
		// the unspecified one, which means "any" in both families.
		if ip.Is4() && ip != netip.IPv4Unspecified() {
			ip = netip.AddrFrom16(ip.As16())
		} else if ip.Is4() {
			ip = netip.IPv6Unspecified()
		}
		return &sockaddrInet6{Port: int(ap.Port()), Addr: ip.As16(), ZoneId: zoneID(ip.Zone())}, nil
	}
	return nil, errors.New("socket: unknown address family")
}

// familyOf picks the family of a socket that dials ap (or, listen, listens
// on it) for an inet network ("tcp", "tcp4", "tcp6", "udp", ...), and
// whether IPV6_V6ONLY is set, as net's favoriteAddrFamily does: "tcp" or
// "udp" listening on the wildcard address is dual-stack.
func familyOf(network string, ap netip.AddrPort, listen bool) (family int, v6only bool) {
	ip := ap.Addr()
	switch ipVersion(network) {
	case '4':
		return afInet, false
	case '6':
		return afInet6, true
	}
	if listen && (!ip.IsValid() || ip.IsUnspecified()) {
		return afInet6, false
	}
	if !ip.IsValid() || ip.Unmap().Is4() {
		return afInet, false
	}
	return afInet6, false
}

// ipVersion is '4' for "tcp4" and "udp4", '6' for "tcp6" and "udp6", else
// 0.
func ipVersion(network string) byte {
	if n := len(network); n > 0 && (network[n-1] == '4' || network[n-1] == '6') {
		return network[n-1]
	}
	return 0
}

// streamAddrs are an accepted TCP conn's two addresses and the bytes of
// their IPs, allocated together: one object a conn instead of four.
type streamAddrs struct {
	local, remote net.TCPAddr
	ips           [2 * net.IPv6len]byte
}

// acceptedAddrs returns the addresses of a TCP conn accepted from from
// on a listener bound to local: a copy of local of the conn's own, and
// what addrOf makes of from.
func acceptedAddrs(local *net.TCPAddr, from *rawAddr) (l, r net.Addr) {
	p := new(streamAddrs)
	n := copy(p.ips[:16], local.IP)
	p.local = net.TCPAddr{IP: p.ips[:n:n], Port: local.Port, Zone: local.Zone}
	switch from.family() {
	case afInet:
		a := (*rawSockaddrInet4)(unsafe.Pointer(&from.raw))
		p.remote = net.TCPAddr{IP: p.ips[16:20:20], Port: int(port(&a.Port))} // four bytes, as net's
		copy(p.remote.IP, a.Addr[:])
	case afInet6:
		a := (*rawSockaddrInet6)(unsafe.Pointer(&from.raw))
		p.remote = net.TCPAddr{IP: p.ips[16:32:32], Port: int(port(&a.Port)), Zone: zoneName(a.Scope_id)}
		copy(p.remote.IP, a.Addr[:])
	default:
		return &p.local, addrOf(from.toSockaddr(), sockStream)
	}
	return &p.local, &p.remote
}
