//go:build unix || windows

package socket

import (
	"net"
	"net/netip"
	"unsafe"

	"github.com/revoltgo/eventloop/core"
)

// The datagram side of netFD: one system call per datagram, under the
// direction's lock and deadline, waiting only on EAGAIN (ioLoop), the
// addresses in the kernel's form on the caller's stack (rawAddr).

var zeroByte byte // the buffer of an empty datagram: the kernel wants a valid pointer

func bufPtr(p []byte) unsafe.Pointer {
	if len(p) == 0 {
		return unsafe.Pointer(&zeroByte)
	}
	return unsafe.Pointer(&p[0])
}

func (fd *netFD) unixFamily() bool { return fd.family == afUnix }

// readFrom reads one datagram into p (recvfrom(2); recvmsg(2) with its
// control messages into oob if msg), truncated to p as net's are, and
// says who sent it.
func (fd *netFD) readFrom(p, oob []byte, msg bool) (n, oobn, flags int, from peer, err error) {
	if len(p) == 0 && !msg && emptyReadFromReturns {
		if fd.isClosed() {
			return 0, 0, 0, peer{}, fd.closedErr()
		}
		return 0, 0, 0, peer{}, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW] // Winsock takes an int32 count
	}
	var ra rawAddr
	name := "recvfrom"
	if msg {
		name = "recvmsg"
	}
	err = fd.ioLoop(core.Read, name, func() (err error) {
		if msg {
			n, oobn, flags, err = recvmsg(fd.pd.Sysfd(), p, oob, 0, &ra)
		} else {
			n, err = recvfrom(fd.pd.Sysfd(), p, &ra)
		}
		return err
	})
	if ra.len != 0 {
		if fd.family == afUnix {
			from.name = ra.unixName()
		} else {
			from.ap = ra.addrPort()
		}
	}
	if err != nil {
		// Nothing read, or on Windows a datagram longer than p: its start
		// and WSAEMSGSIZE, as net returns them, and its sender, which
		// net's leaves out.
		return n, oobn, flags, from, err
	}
	return n, oobn, flags, from, nil
}

// writeTo sends p as one datagram to to (to the connected peer if to is
// none): sendto(2), or sendmsg(2) with oob if msg.
func (fd *netFD) writeTo(p, oob []byte, to peer, msg bool) (n, oobn int, err error) {
	if err := datagramFits(p); err != nil {
		return 0, 0, err
	}
	var ra rawAddr
	if fd.family == afUnix {
		if to.name != "" {
			err = ra.setUnix(to.name)
		}
	} else if to.ap.IsValid() {
		err = ra.setInet(int(fd.family), to.ap)
	}
	if err != nil {
		return 0, 0, err
	}
	name := "sendto"
	if msg {
		name = "sendmsg"
	}
	err = fd.ioLoop(core.Write, name, func() (err error) {
		if msg {
			n, oobn, err = sendmsg(fd.pd.Sysfd(), p, oob, &ra)
		} else {
			n, err = sendto(fd.pd.Sysfd(), p, &ra)
		}
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return n, oobn, nil
}

// datagramFits refuses a datagram over maxRW: none is that long, and
// Winsock takes an int32 count.
func datagramFits(p []byte) error {
	if len(p) > maxRW {
		return sysError(callWrite, errMsgSize)
	}
	return nil
}

// checkPeer is the error of a Write without address on a datagram
// socket that has no peer: EDESTADDRREQ on every system (PacketConn.Write).
func (fd *netFD) checkPeer() error {
	if fd.connected() || fd.isClosed() {
		return nil // the call says ErrClosed
	}
	return sysError(callWrite, errDestAddrReq)
}

// udpAddrPort is a *net.UDPAddr as net sends to it: no IP is the
// unspecified address of the socket's family.
func (fd *netFD) udpAddrPort(a *net.UDPAddr) (netip.AddrPort, error) {
	if a.Port < 0 || a.Port > 0xffff {
		return netip.AddrPort{}, &net.AddrError{Err: "invalid port", Addr: a.String()}
	}
	var ip netip.Addr
	switch {
	case len(a.IP) != 0:
		var ok bool
		if ip, ok = netip.AddrFromSlice(a.IP); !ok {
			return netip.AddrPort{}, &net.AddrError{Err: "invalid IP address", Addr: a.IP.String()}
		}
		ip = ip.WithZone(a.Zone)
	case fd.family == afInet:
		ip = netip.IPv4Unspecified()
	default:
		ip = netip.IPv6Unspecified()
	}
	return netip.AddrPortFrom(ip, uint16(a.Port)), nil
}
