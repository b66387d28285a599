package socket

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// ListenPacket makes a datagram socket bound to address ("host:port" for
// "udp", "udp4" and "udp6", a path for "unixgram") with the loop l, as
// ListenConfig{}.ListenPacket does.
func ListenPacket(l *core.Loop, network, address string) (*PacketConn, error) {
	var lc ListenConfig
	return lc.ListenPacket(context.Background(), l, network, address)
}

// ListenPacket makes a datagram socket bound to address with the loop l.
// ReusePort and Control apply, as for Listen. "udp" on the wildcard
// address is dual-stack, as in net. ctx bounds the resolution of a host
// name.
func (lc *ListenConfig) ListenPacket(ctx context.Context, l *core.Loop, network, address string) (*PacketConn, error) {
	if l == nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: errNilLoop}
	}
	fd, err := listenPacket(ctx, lc, l, network, address)
	if err != nil {
		return nil, err
	}
	return &PacketConn{fd: fd}, nil
}

// PacketConn is a datagram socket (UDP or unixgram) on a loop: what
// ListenPacket makes, and what a dialed datagram Conn is too (see
// Conn.PacketConn), as net's *UDPConn and *UnixConn are both a net.Conn
// and a net.PacketConn. One type serves both families, as Conn does for
// streams; the UDP methods fail on a unixgram socket and the Unix ones on
// a UDP socket, with EINVAL. Every method is safe from any goroutine and
// waits as the package doc says: a fiber of the socket's loop suspends,
// any other goroutine blocks.
//
// Each read returns one datagram: a datagram longer than the buffer is
// cut to it and the rest is lost, as with net (ReadMsgUDP's flags say
// MSG_TRUNC). Each write sends one datagram, an empty one included.
type PacketConn struct{ fd *netFD }

var (
	_ net.PacketConn = (*PacketConn)(nil)
	_ net.Conn       = (*PacketConn)(nil)
)

// peer is the other end of a datagram: an inet address or a unix name;
// neither: none (a connected socket, an unnamed sender).
type peer struct {
	ap   netip.AddrPort
	name string
}

// errMissingAddress: a send without an address on a socket not connected
// (net's words).
var errMissingAddress = errors.New("missing address")

func (c *PacketConn) ok() bool { return c != nil && c.fd != nil }

// ReadFrom reads one datagram into b and returns its length (at most
// len(b)) and its sender: a *net.UDPAddr, or a *net.UnixAddr (nil for an
// unnamed sender).
func (c *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if !c.ok() {
		return 0, nil, syscall.EINVAL
	}
	n, _, _, from, err := c.fd.readFrom(b, nil, false)
	var addr net.Addr
	switch {
	case c.fd.unixFamily() && from.name != "":
		addr = &net.UnixAddr{Name: from.name, Net: "unixgram"}
	case !c.fd.unixFamily() && from.ap.IsValid():
		addr = net.UDPAddrFromAddrPort(from.ap)
	}
	if err != nil {
		// The count comes with the error of a datagram longer than b on
		// Windows, as with net there; the sender too, where net's is nil.
		return n, addr, c.fd.opError("read", err)
	}
	return n, addr, nil
}

// ReadFromUDPAddrPort is ReadFrom for UDP, the sender as a
// netip.AddrPort: on the fiber path it allocates nothing. On a socket
// bound to the dual-stack wildcard the address may be IPv4-mapped, as
// with net (netip.Addr.Unmap).
func (c *PacketConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	if !c.ok() {
		return 0, netip.AddrPort{}, syscall.EINVAL
	}
	if c.fd.unixFamily() {
		return 0, netip.AddrPort{}, c.fd.opError("read", syscall.EINVAL)
	}
	n, _, _, from, err := c.fd.readFrom(b, nil, false)
	if err != nil {
		return n, from.ap, c.fd.opError("read", err)
	}
	return n, from.ap, nil
}

// ReadFromUDP is ReadFrom for UDP. As net's, it is small enough to be
// inlined, so that a caller that keeps the address on its stack makes
// only the allocation of its IP.
func (c *PacketConn) ReadFromUDP(b []byte) (n int, addr *net.UDPAddr, err error) {
	return c.readFromUDP(b, &net.UDPAddr{})
}

func (c *PacketConn) readFromUDP(b []byte, addr *net.UDPAddr) (int, *net.UDPAddr, error) {
	n, ap, err := c.ReadFromUDPAddrPort(b)
	if !ap.IsValid() {
		return n, nil, err
	}
	*addr = net.UDPAddr{IP: ap.Addr().AsSlice(), Port: int(ap.Port()), Zone: ap.Addr().Zone()}
	return n, addr, err
}

// ReadMsgUDPAddrPort reads one datagram into b and its control messages
// into oob (recvmsg(2)); flags are the message's (MSG_TRUNC: b was too
// short).
func (c *PacketConn) ReadMsgUDPAddrPort(b, oob []byte) (n, oobn, flags int, addr netip.AddrPort, err error) {
	if !c.ok() {
		return 0, 0, 0, netip.AddrPort{}, syscall.EINVAL
	}
	if c.fd.unixFamily() {
		return 0, 0, 0, netip.AddrPort{}, c.fd.opError("read", syscall.EINVAL)
	}
	n, oobn, flags, from, err := c.fd.readFrom(b, oob, true)
	if err != nil {
		return n, oobn, flags, from.ap, c.fd.opError("read", err)
	}
	return n, oobn, flags, from.ap, nil
}

// ReadMsgUDP is ReadMsgUDPAddrPort with the sender as a *net.UDPAddr.
func (c *PacketConn) ReadMsgUDP(b, oob []byte) (n, oobn, flags int, addr *net.UDPAddr, err error) {
	var ap netip.AddrPort
	n, oobn, flags, ap, err = c.ReadMsgUDPAddrPort(b, oob)
	if ap.IsValid() {
		addr = net.UDPAddrFromAddrPort(ap)
	}
	return
}

// ReadFromUnix is ReadFrom for unixgram: the sender is nil if it is
// unnamed.
func (c *PacketConn) ReadFromUnix(b []byte) (int, *net.UnixAddr, error) {
	if !c.ok() {
		return 0, nil, syscall.EINVAL
	}
	if !c.fd.unixFamily() {
		return 0, nil, c.fd.opError("read", syscall.EINVAL)
	}
	n, _, _, from, err := c.fd.readFrom(b, nil, false)
	if err != nil {
		return n, nil, c.fd.opError("read", err)
	}
	if from.name == "" {
		return n, nil, nil
	}
	return n, &net.UnixAddr{Name: from.name, Net: "unixgram"}, nil
}

// WriteTo sends b as one datagram to addr: a *net.UDPAddr for UDP, a
// *net.UnixAddr (Net "unixgram") for unixgram. On a connected socket it
// fails with net.ErrWriteToConnected, as net's.
func (c *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	switch a := addr.(type) {
	case *net.UDPAddr:
		if !c.fd.unixFamily() {
			return c.WriteToUDP(b, a)
		}
	case *net.UnixAddr:
		if c.fd.unixFamily() {
			return c.WriteToUnix(b, a)
		}
	}
	// nil included, as net's (errMissingAddress is for a nil *UDPAddr).
	return 0, c.fd.opErrorTo("write", addr, syscall.EINVAL)
}

// WriteToUDPAddrPort sends b as one datagram to addr; on the fiber path
// it allocates nothing.
func (c *PacketConn) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	n, _, err := c.writeMsgAddrPort(b, nil, addr, false, nil)
	return n, err
}

// WriteToUDP sends b as one datagram to addr.
func (c *PacketConn) WriteToUDP(b []byte, addr *net.UDPAddr) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	n, _, err := c.writeMsgUDP(b, nil, addr, false)
	return n, err
}

// WriteMsgUDPAddrPort sends b as one datagram with the control messages
// oob (sendmsg(2)) to addr, or to the peer of a connected socket (addr
// then must be the zero AddrPort).
func (c *PacketConn) WriteMsgUDPAddrPort(b, oob []byte, addr netip.AddrPort) (n, oobn int, err error) {
	if !c.ok() {
		return 0, 0, syscall.EINVAL
	}
	return c.writeMsgAddrPort(b, oob, addr, true, nil)
}

// WriteMsgUDP is WriteMsgUDPAddrPort with a *net.UDPAddr (nil for the
// peer of a connected socket).
func (c *PacketConn) WriteMsgUDP(b, oob []byte, addr *net.UDPAddr) (n, oobn int, err error) {
	if !c.ok() {
		return 0, 0, syscall.EINVAL
	}
	return c.writeMsgUDP(b, oob, addr, true)
}

func (c *PacketConn) writeMsgUDP(b, oob []byte, addr *net.UDPAddr, msg bool) (n, oobn int, err error) {
	var ap netip.AddrPort
	if addr != nil {
		if ap, err = c.fd.udpAddrPort(addr); err != nil {
			return 0, 0, c.fd.opErrorTo("write", addr, err)
		}
	}
	var opAddr net.Addr
	if addr != nil {
		opAddr = addr
	}
	return c.writeMsgAddrPort(b, oob, ap, msg, opAddr)
}

// writeMsgAddrPort checks addr as net does and sends; opAddr is what the
// error names (addr when nil).
func (c *PacketConn) writeMsgAddrPort(b, oob []byte, addr netip.AddrPort, msg bool, opAddr net.Addr) (n, oobn int, err error) {
	switch {
	case c.fd.unixFamily():
		err = syscall.EINVAL
	case c.fd.connected() && (addr.IsValid() || !msg):
		// As net: only the Msg calls send to the peer of a connected
		// socket, when given no address; every WriteTo refuses.
		err = net.ErrWriteToConnected
	case !c.fd.connected() && !addr.IsValid():
		err = errMissingAddress
	}
	if err == nil {
		n, oobn, err = c.fd.writeTo(b, oob, peer{ap: addr}, msg)
		if err == nil {
			return n, oobn, nil
		}
	}
	if opAddr == nil && addr.IsValid() {
		opAddr = net.UDPAddrFromAddrPort(addr)
	}
	return n, oobn, c.fd.opErrorTo("write", opAddr, err)
}

// WriteToUnix sends b as one datagram to addr, whose Net must be
// "unixgram".
func (c *PacketConn) WriteToUnix(b []byte, addr *net.UnixAddr) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	var err error
	switch {
	case !c.fd.unixFamily():
		err = syscall.EINVAL
	case c.fd.connected():
		err = net.ErrWriteToConnected
	case addr == nil:
		return 0, c.fd.opErrorTo("write", nil, errMissingAddress)
	case addr.Net != "unixgram":
		err = syscall.EAFNOSUPPORT // as net
	}
	if err == nil {
		var n int
		if n, _, err = c.fd.writeTo(b, nil, peer{name: addr.Name}, false); err == nil {
			return n, nil
		}
	}
	return 0, c.fd.opErrorTo("write", addr, err)
}

// Read reads one datagram (from anyone, unless the socket is connected),
// as net's UDPConn.Read: 0, nil at once for an empty b.
func (c *PacketConn) Read(b []byte) (int, error) { return (*Conn)(c).Read(b) }

// Write sends b as one datagram to the peer of a connected socket; on
// one that is not, it fails with EDESTADDRREQ, as Unix's send(2) does
// (Winsock says WSAENOTCONN, Wine 8.0 WSAEINVAL).
func (c *PacketConn) Write(b []byte) (int, error) {
	if c.ok() {
		if err := c.fd.checkPeer(); err != nil {
			return 0, c.fd.opError("write", err)
		}
	}
	return (*Conn)(c).Write(b)
}

// Close closes the socket: every call waiting on it returns an error
// wrapping net.ErrClosed. A unixgram socket's file stays, as with net.
func (c *PacketConn) Close() error { return (*Conn)(c).Close() }

// LocalAddr returns the local address (*net.UDPAddr or *net.UnixAddr).
func (c *PacketConn) LocalAddr() net.Addr { return (*Conn)(c).LocalAddr() }

// RemoteAddr returns the peer of a connected socket, else nil.
func (c *PacketConn) RemoteAddr() net.Addr { return (*Conn)(c).RemoteAddr() }

// SetDeadline sets the read and write deadlines, as Conn.SetDeadline.
func (c *PacketConn) SetDeadline(t time.Time) error { return (*Conn)(c).SetDeadline(t) }

// SetReadDeadline sets the read deadline (see Conn.SetDeadline).
func (c *PacketConn) SetReadDeadline(t time.Time) error { return (*Conn)(c).SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline (see Conn.SetDeadline).
func (c *PacketConn) SetWriteDeadline(t time.Time) error { return (*Conn)(c).SetWriteDeadline(t) }

// SetReadBuffer sets the size of the kernel's receive buffer (SO_RCVBUF).
func (c *PacketConn) SetReadBuffer(bytes int) error { return (*Conn)(c).SetReadBuffer(bytes) }

// SetWriteBuffer sets the size of the kernel's send buffer (SO_SNDBUF).
func (c *PacketConn) SetWriteBuffer(bytes int) error { return (*Conn)(c).SetWriteBuffer(bytes) }

// SyscallConn returns a raw connection: its Read and Write wait on the
// loop as the PacketConn's reads and writes do.
func (c *PacketConn) SyscallConn() (syscall.RawConn, error) { return (*Conn)(c).SyscallConn() }

// File returns a duplicate of the socket as an *os.File (close-on-exec).
func (c *PacketConn) File() (*os.File, error) { return (*Conn)(c).File() }

// PacketConn returns c as a *PacketConn if it is a datagram socket (Dial
// on "udp", "udp4", "udp6" or "unixgram"), for ReadFromUDPAddrPort,
// ReadMsgUDP and the like; nil for a stream. Both are the same socket:
// closing one closes the other.
func (c *Conn) PacketConn() *PacketConn {
	if !c.ok() || !c.fd.dgram() {
		return nil
	}
	return (*PacketConn)(c)
}

// connected reports whether a datagram socket has a peer.
func (fd *netFD) connected() bool { return fd.raddr != nil }
