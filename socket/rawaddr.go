//go:build unix || windows

package socket

import (
	"net"
	"net/netip"
	"unsafe"
)

// rawAddr is a socket address in the kernel's own form, written and read
// in place by the datagram calls (sys_*.go): golang.org/x/sys/unix's
// Sockaddr values escape to the heap, one allocation per datagram, which
// the fiber path of ReadFromUDPAddrPort and WriteToUDPAddrPort does not
// make. A unix name is kept as given ("@name" for Linux's abstract
// names); the system call turns it into what the kernel wants.
type rawAddr struct {
	raw rawSockaddrAny
	len uint32 // 0: no address (a connected socket's send)
}

// pathOffset is where the path of a sockaddr_un starts.
const pathOffset = uint32(unsafe.Offsetof(rawSockaddrUnix{}.Path))

func (a *rawAddr) family() int { return int(a.raw.Addr.Family) }

// setInet sets ap for a socket of family, as net does: an IPv4-mapped
// address is IPv4 for an AF_INET socket, an IPv4 one is mapped for an
// AF_INET6 socket. ap must be valid.
func (a *rawAddr) setInet(family int, ap netip.AddrPort) error {
	ip := ap.Addr()
	switch family {
	case afInet:
		if !ip.Is4() && !ip.Is4In6() {
			return &net.AddrError{Err: "non-IPv4 address", Addr: ip.String()}
		}
		r := (*rawSockaddrInet4)(unsafe.Pointer(&a.raw))
		*r = rawSockaddrInet4{Family: afInet, Addr: ip.As4()}
		putPort(&r.Port, ap.Port())
		a.len = sizeofSockaddrInet4
	case afInet6:
		r := (*rawSockaddrInet6)(unsafe.Pointer(&a.raw))
		*r = rawSockaddrInet6{Family: afInet6, Addr: ip.As16(), Scope_id: zoneID(ip.Zone())}
		putPort(&r.Port, ap.Port())
		a.len = sizeofSockaddrInet6
	default:
		return &net.AddrError{Err: "invalid address family", Addr: ip.String()}
	}
	return nil
}

// setUnix sets a unix socket's name.
func (a *rawAddr) setUnix(name string) error {
	r := (*rawSockaddrUnix)(unsafe.Pointer(&a.raw))
	if len(name) > len(r.Path) || (len(name) == len(r.Path) && name[0] != '@') {
		return errInval
	}
	r.Family = afUnix
	// Path is of int8 on most systems and of uint8 on AIX.
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r.Path[0])), len(r.Path)), name)
	a.len = pathOffset
	if len(name) > 0 {
		a.len += uint32(len(name))
		// A path ends with a NUL; a name that starts with one is a Linux
		// abstract name, whose length is its own (a NUL after it would be
		// part of it). An abstract name written "@name" is made so on
		// Linux by kernelAddr: elsewhere it is a path.
		if len(name) < len(r.Path) && name[0] != 0 {
			r.Path[len(name)] = 0
			a.len++
		}
	}
	return nil
}

// addrPort is the inet address; the zero AddrPort if there is none.
func (a *rawAddr) addrPort() netip.AddrPort {
	switch a.family() {
	case afInet:
		r := (*rawSockaddrInet4)(unsafe.Pointer(&a.raw))
		return netip.AddrPortFrom(netip.AddrFrom4(r.Addr), port(&r.Port))
	case afInet6:
		r := (*rawSockaddrInet6)(unsafe.Pointer(&a.raw))
		ip := netip.AddrFrom16(r.Addr)
		if r.Scope_id != 0 {
			ip = ip.WithZone(zoneName(r.Scope_id))
		}
		return netip.AddrPortFrom(ip, port(&r.Port))
	}
	return netip.AddrPort{}
}

// unixName is the unix name, "" for an unnamed socket; a Linux abstract
// name comes back as "@name".
func (a *rawAddr) unixName() string {
	if a.family() != afUnix || a.len <= pathOffset {
		return ""
	}
	r := (*rawSockaddrUnix)(unsafe.Pointer(&a.raw))
	n := min(int(a.len-pathOffset), len(r.Path))
	p := unsafe.Slice((*byte)(unsafe.Pointer(&r.Path[0])), n)
	if p[0] == 0 {
		return "@" + string(p[1:])
	}
	for i, c := range p {
		if c == 0 {
			p = p[:i]
			break
		}
	}
	return string(p)
}

// toSockaddr and fromSockaddr convert for the system calls of
// golang.org/x/sys/unix (sys_portable_unix.go).
func (a *rawAddr) toSockaddr() sockaddr {
	switch a.family() {
	case afInet:
		ap := a.addrPort()
		return &sockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	case afInet6:
		r := (*rawSockaddrInet6)(unsafe.Pointer(&a.raw))
		return &sockaddrInet6{Port: int(port(&r.Port)), Addr: r.Addr, ZoneId: r.Scope_id}
	case afUnix:
		return &sockaddrUnix{Name: a.unixName()}
	}
	return nil
}

func (a *rawAddr) fromSockaddr(sa sockaddr) {
	switch sa := sa.(type) {
	case *sockaddrInet4:
		a.setInet(afInet, netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)))
	case *sockaddrInet6:
		r := (*rawSockaddrInet6)(unsafe.Pointer(&a.raw))
		*r = rawSockaddrInet6{Family: afInet6, Addr: sa.Addr, Scope_id: sa.ZoneId}
		putPort(&r.Port, uint16(sa.Port))
		a.len = sizeofSockaddrInet6
	case *sockaddrUnix:
		if a.setUnix(sa.Name) == nil {
			return
		}
		a.raw.Addr.Family, a.len = afUnix, pathOffset
	default:
		a.raw.Addr.Family, a.len = afUnspec, 0
	}
}

// A port is in network byte order in the kernel's structures.
func putPort(p *uint16, v uint16) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0], b[1] = byte(v>>8), byte(v)
}

func port(p *uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(p))
	return uint16(b[0])<<8 | uint16(b[1])
}
