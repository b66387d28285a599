//go:build unix

package socket

import (
	"net"
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawAddr is a socket address in the kernel's own form, written and read
// in place by the datagram calls (sys_*.go): golang.org/x/sys/unix's
// Sockaddr values escape to the heap, one allocation per datagram, which
// the fiber path of ReadFromUDPAddrPort and WriteToUDPAddrPort does not
// make. A unix name is kept as given ("@name" for Linux's abstract
// names); the system call turns it into what the kernel wants.
type rawAddr struct {
	raw unix.RawSockaddrAny
	len uint32 // 0: no address (a connected socket's send)
}

// pathOffset is where the path of a sockaddr_un starts.
const pathOffset = uint32(unsafe.Offsetof(unix.RawSockaddrUnix{}.Path))

func (a *rawAddr) family() int { return int(a.raw.Addr.Family) }

// setInet sets ap for a socket of family, as net does: an IPv4-mapped
// address is IPv4 for an AF_INET socket, an IPv4 one is mapped for an
// AF_INET6 socket. ap must be valid.
func (a *rawAddr) setInet(family int, ap netip.AddrPort) error {
	ip := ap.Addr()
	switch family {
	case unix.AF_INET:
		if !ip.Is4() && !ip.Is4In6() {
			return &net.AddrError{Err: "non-IPv4 address", Addr: ip.String()}
		}
		r := (*unix.RawSockaddrInet4)(unsafe.Pointer(&a.raw))
		*r = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.As4()}
		putPort(&r.Port, ap.Port())
		a.len = unix.SizeofSockaddrInet4
	case unix.AF_INET6:
		r := (*unix.RawSockaddrInet6)(unsafe.Pointer(&a.raw))
		*r = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16(), Scope_id: zoneID(ip.Zone())}
		putPort(&r.Port, ap.Port())
		a.len = unix.SizeofSockaddrInet6
	default:
		return &net.AddrError{Err: "invalid address family", Addr: ip.String()}
	}
	return nil
}

// setUnix sets a unix socket's name.
func (a *rawAddr) setUnix(name string) error {
	r := (*unix.RawSockaddrUnix)(unsafe.Pointer(&a.raw))
	if len(name) > len(r.Path) || (len(name) == len(r.Path) && name[0] != '@') {
		return unix.EINVAL
	}
	r.Family = unix.AF_UNIX
	// Path is of int8 on most systems and of uint8 on AIX.
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r.Path[0])), len(r.Path)), name)
	a.len = pathOffset
	if len(name) > 0 {
		a.len += uint32(len(name))
		if len(name) < len(r.Path) {
			r.Path[len(name)] = 0
			a.len++
		}
	}
	return nil
}

// addrPort is the inet address; the zero AddrPort if there is none.
func (a *rawAddr) addrPort() netip.AddrPort {
	switch a.family() {
	case unix.AF_INET:
		r := (*unix.RawSockaddrInet4)(unsafe.Pointer(&a.raw))
		return netip.AddrPortFrom(netip.AddrFrom4(r.Addr), port(&r.Port))
	case unix.AF_INET6:
		r := (*unix.RawSockaddrInet6)(unsafe.Pointer(&a.raw))
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
	if a.family() != unix.AF_UNIX || a.len <= pathOffset {
		return ""
	}
	r := (*unix.RawSockaddrUnix)(unsafe.Pointer(&a.raw))
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
func (a *rawAddr) toSockaddr() unix.Sockaddr {
	switch a.family() {
	case unix.AF_INET:
		ap := a.addrPort()
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	case unix.AF_INET6:
		r := (*unix.RawSockaddrInet6)(unsafe.Pointer(&a.raw))
		return &unix.SockaddrInet6{Port: int(port(&r.Port)), Addr: r.Addr, ZoneId: r.Scope_id}
	case unix.AF_UNIX:
		return &unix.SockaddrUnix{Name: a.unixName()}
	}
	return nil
}

func (a *rawAddr) fromSockaddr(sa unix.Sockaddr) {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		a.setInet(unix.AF_INET, netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)))
	case *unix.SockaddrInet6:
		r := (*unix.RawSockaddrInet6)(unsafe.Pointer(&a.raw))
		*r = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: sa.Addr, Scope_id: sa.ZoneId}
		putPort(&r.Port, uint16(sa.Port))
		a.len = unix.SizeofSockaddrInet6
	case *unix.SockaddrUnix:
		if a.setUnix(sa.Name) == nil {
			return
		}
		a.raw.Addr.Family, a.len = unix.AF_UNIX, pathOffset
	default:
		a.raw.Addr.Family, a.len = unix.AF_UNSPEC, 0
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
