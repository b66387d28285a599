//go:build unix || windows

package socket

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/revoltgo/eventloop/core"
)

func listen(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
		return bindNetwork(ctx, lc, l, "listen", network, address, sockStream)
	}
	return nil, &net.OpError{Op: "listen", Net: network, Err: net.UnknownNetworkError(network)}
}

func listenPacket(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	switch network {
	case "udp", "udp4", "udp6", "unixgram":
		return bindNetwork(ctx, lc, l, "listen", network, address, sockDgram)
	}
	return nil, &net.OpError{Op: "listen", Net: network, Err: net.UnknownNetworkError(network)}
}

// bindNetwork makes a socket of sotype bound to address: a listening
// stream socket, or a datagram socket ready to exchange datagrams.
func bindNetwork(ctx context.Context, lc *ListenConfig, l *core.Loop, op, network, address string, sotype int) (*netFD, error) {
	opErr := func(addr net.Addr, err error) error {
		return &net.OpError{Op: op, Net: network, Addr: addr, Err: err}
	}
	if network == "unix" || network == "unixgram" {
		laddr := &net.UnixAddr{Name: address, Net: network}
		if err := unixSockets(); err != nil {
			return nil, opErr(laddr, err)
		}
		fd, err := bindUnix(lc, l, network, sotype, address)
		if err != nil {
			return nil, opErr(laddr, err)
		}
		return fd, nil
	}
	aps, err := resolve(ctx, l, network, address)
	if err != nil {
		return nil, opErr(nil, err)
	}
	ap := aps[0]
	for _, a := range aps { // net listens on the first IPv4 address
		if a.Addr().Unmap().Is4() {
			ap = a
			break
		}
	}
	var laddr net.Addr = net.TCPAddrFromAddrPort(ap)
	if sotype == sockDgram {
		laddr = net.UDPAddrFromAddrPort(ap)
	}
	family, v6only := familyOf(network, ap, true)
	fd, err := bindInet(lc, l, network, sotype, family, v6only, ap)
	if err != nil && ipVersion(network) == 0 && family == afInet6 && !ap.Addr().IsValid() && noIPv6(err) {
		// A system without IPv6: "tcp" or "udp" on the wildcard is IPv4
		// alone.
		fd, err = bindInet(lc, l, network, sotype, afInet, false, ap)
	}
	if err != nil {
		return nil, opErr(laddr, err)
	}
	return fd, nil
}

func bindInet(lc *ListenConfig, l *core.Loop, network string, sotype, family int, v6only bool, ap netip.AddrPort) (*netFD, error) {
	sa, err := inetSockaddr(family, ap)
	if err != nil {
		return nil, err
	}
	s, err := sysSocket(family, sotype, 0)
	if err != nil {
		return nil, wrapSyscall("socket", err)
	}
	// The options net sets (sys_unix.go).
	if sotype == sockDgram {
		err = dgramSockopts(s, family)
	} else {
		err = listenerSockopts(s)
	}
	if err == nil && family == afInet6 {
		err = wrapSyscall("setsockopt", setsockoptInt(s, ipprotoIPv6, ipv6V6Only, boolInt(v6only)))
	}
	// Set before listen(2), so that no conn is queued without them.
	inherits := err == nil && sotype == sockStream && setInherited(s, lc.KeepAlive)
	if err == nil {
		err = bindListen(lc, s, sotype, ctrlNetwork(network, family), net.TCPAddrFromAddrPort(ap).String(), sa)
	}
	if err != nil {
		_ = sysClose(s)
		return nil, err
	}
	fd, err := boundFD(l, s, family, sotype, network, "")
	if err != nil {
		_ = sysClose(s)
		return nil, err
	}
	if sotype == sockStream && lc.Control == nil {
		// A Control may have changed what the conns would inherit, or
		// made the socket one that takes conns for other addresses
		// (IP_TRANSPARENT): accept then does what net does.
		fd.ln.inherits = inherits
		if a, ok := fd.laddr.(*net.TCPAddr); ok && a.IP != nil && !a.IP.IsUnspecified() {
			fd.ln.local = a
		}
	}
	return fd, nil
}

// ctrlNetwork is the network ListenConfig.Control is told, as net tells
// it: the socket's family spelled out ("tcp4" for an IPv4 socket of
// "tcp").
func ctrlNetwork(network string, family int) string {
	if ipVersion(network) != 0 {
		return network
	}
	if family == afInet {
		return network + "4"
	}
	return network + "6"
}

func bindUnix(lc *ListenConfig, l *core.Loop, network string, sotype int, path string) (*netFD, error) {
	s, err := sysSocket(afUnix, sotype, 0)
	if err != nil {
		return nil, wrapSyscall("socket", err)
	}
	if err := bindListen(lc, s, sotype, network, path, &sockaddrUnix{Name: path}); err != nil {
		_ = sysClose(s)
		return nil, err
	}
	// A listener removes its socket file on Close, as net's UnixListener;
	// a datagram socket leaves it, as net's UnixConn.
	unlink := path
	if path == "" || path[0] == '@' || sotype != sockStream {
		unlink = "" // abstract (Linux), or not ours to remove
	}
	fd, err := boundFD(l, s, afUnix, sotype, network, unlink)
	if err != nil {
		_ = sysClose(s)
		return nil, err
	}
	if fd.laddr == nil {
		fd.laddr = &net.UnixAddr{Name: path, Net: network}
	}
	return fd, nil
}

// bindListen binds s to sa (ListenConfig's ReusePort and Control first)
// and, for a stream socket, listens.
func bindListen(lc *ListenConfig, s, sotype int, network, address string, sa sockaddr) error {
	if lc.ReusePort {
		if err := setReusePort(s); err != nil {
			return err
		}
	}
	if lc.Control != nil {
		if err := lc.Control(network, address, ctrlConn(s)); err != nil {
			return err
		}
	}
	if err := sysBind(s, sa); err != nil {
		return wrapSyscall("bind", err)
	}
	if sotype != sockStream {
		return nil
	}
	backlog := lc.Backlog
	if backlog <= 0 {
		backlog = listenMaxLen
	}
	return wrapSyscall("listen", sysListen(s, backlog))
}

// boundFD makes the fd of a bound socket: a listener (stream) or a
// datagram socket.
func boundFD(l *core.Loop, s, family, sotype int, network, unlink string) (*netFD, error) {
	fd, err := newFD(l, s, family, sotype, network)
	if err != nil {
		return nil, err
	}
	if sotype == sockStream {
		fd.ln = &listenState{unlink: unlink}
	}
	if sa, err := sysGetsockname(s); err == nil {
		fd.laddr = addrOf(sa, sotype)
	}
	return fd, nil
}

// ctrlConn is the RawConn given to ListenConfig.Control: the socket is not
// on the loop yet, so only Control works.
type ctrlConn int

func (c ctrlConn) Control(f func(fd uintptr)) error { f(uintptr(c)); return nil }
func (c ctrlConn) Read(func(fd uintptr) bool) error {
	return sysError("read", errNotSupp)
}
func (c ctrlConn) Write(func(fd uintptr) bool) error {
	return sysError("write", errNotSupp)
}

// accept takes the next connection (see Listener.AcceptConn).
func (fd *netFD) accept(keepAlive time.Duration) (*netFD, error) {
	var c *netFD
	err := fd.ioLoop(core.Read, "accept", func() error {
		if err := fd.backOff(); err != nil {
			return err
		}
		var from rawAddr
		ns, err := acceptFrom(fd.pd.Sysfd(), &from)
		switch {
		case err == nil:
			fd.acceptedOne()
			if c, err = fd.accepted(ns, &from, keepAlive); err != nil {
				_ = sysClose(ns)
			}
			return err
		case err == errAgain:
			return errAgain
		case acceptAgain(err):
			// A connection reset before it was taken: net skips it too.
			return errAgainNow
		case outOfResources(err):
			// The connection stays queued (backoff.go).
			fd.failedAccept()
		}
		return wrapSyscall("accept", err)
	})
	return c, err
}

// testHookAccepted, when set, is told of each call accepted makes beyond
// accept(2): "getsockname", "setsockopt".
var testHookAccepted func(call string)

// accepted makes the fd of a new connection, with net's options. Where the
// listening socket carries them (fd.ln.inherits) the conn has them from
// the kernel, and where it listens on one address that is the conn's too:
// a conn of a short request then costs five system calls fewer.
func (fd *netFD) accepted(ns int, from *rawAddr, keepAlive time.Duration) (*netFD, error) {
	c, err := newFD(fd.pd.Loop(), ns, int(fd.family), sockStream, fd.net)
	if err != nil {
		return nil, err
	}
	if a := fd.ln.local; a != nil {
		c.laddr, c.raddr = acceptedAddrs(a, from)
	} else {
		if testHookAccepted != nil {
			testHookAccepted("getsockname")
		}
		if sa, err := sysGetsockname(ns); err == nil {
			c.laddr = addrOf(sa, sockStream)
		}
		c.raddr = addrOf(from.toSockaddr(), sockStream)
	}
	if fd.family != afUnix && !fd.ln.inherits {
		if testHookAccepted != nil {
			testHookAccepted("setsockopt")
		}
		// Best effort, as net: a conn that cannot take them still works.
		_ = c.setNoDelay(true)
		_ = c.keepAlive(keepAlive)
	}
	return c, nil
}

// Deadlines and back-offs are kept as monotonic nanoseconds since the
// package started, never 0 (which stands for "none").
var monoBase = time.Now()

func nowMono() int64 { return int64(time.Since(monoBase)) + 1 }
