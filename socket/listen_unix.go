//go:build unix

package socket

import (
	"context"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

func listen(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
		return bindNetwork(ctx, lc, l, "listen", network, address, unix.SOCK_STREAM)
	}
	return nil, &net.OpError{Op: "listen", Net: network, Err: net.UnknownNetworkError(network)}
}

func listenPacket(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	switch network {
	case "udp", "udp4", "udp6", "unixgram":
		return bindNetwork(ctx, lc, l, "listen", network, address, unix.SOCK_DGRAM)
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
	if sotype == unix.SOCK_DGRAM {
		laddr = net.UDPAddrFromAddrPort(ap)
	}
	family, v6only := familyOf(network, ap, true)
	fd, err := bindInet(lc, l, network, sotype, family, v6only, ap)
	if err != nil && ipVersion(network) == 0 && family == unix.AF_INET6 && !ap.Addr().IsValid() && noIPv6(err) {
		// A system without IPv6: "tcp" or "udp" on the wildcard is IPv4
		// alone.
		fd, err = bindInet(lc, l, network, sotype, unix.AF_INET, false, ap)
	}
	if err != nil {
		return nil, opErr(laddr, err)
	}
	return fd, nil
}

func noIPv6(err error) bool {
	return isErrno(err, unix.EAFNOSUPPORT) || isErrno(err, unix.EPROTONOSUPPORT) || isErrno(err, unix.EADDRNOTAVAIL)
}

func bindInet(lc *ListenConfig, l *core.Loop, network string, sotype, family int, v6only bool, ap netip.AddrPort) (*netFD, error) {
	sa, err := inetSockaddr(family, ap)
	if err != nil {
		return nil, err
	}
	s, err := sysSocket(family, sotype, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// The options net sets: SO_REUSEADDR on a listener, SO_BROADCAST on a
	// datagram socket.
	opt := unix.SO_REUSEADDR
	if sotype == unix.SOCK_DGRAM {
		opt = unix.SO_BROADCAST
	}
	err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.SOL_SOCKET, opt, 1))
	if err == nil && family == unix.AF_INET6 {
		err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, boolInt(v6only)))
	}
	if err == nil {
		err = bindListen(lc, s, sotype, network, ap.String(), sa)
	}
	if err != nil {
		unix.Close(s)
		return nil, err
	}
	return boundFD(l, s, family, sotype, network, ""), nil
}

func bindUnix(lc *ListenConfig, l *core.Loop, network string, sotype int, path string) (*netFD, error) {
	s, err := sysSocket(unix.AF_UNIX, sotype, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := bindListen(lc, s, sotype, network, path, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(s)
		return nil, err
	}
	// A listener removes its socket file on Close, as net's UnixListener;
	// a datagram socket leaves it, as net's UnixConn.
	unlink := path
	if path == "" || path[0] == '@' || sotype != unix.SOCK_STREAM {
		unlink = "" // abstract (Linux), or not ours to remove
	}
	fd := boundFD(l, s, unix.AF_UNIX, sotype, network, unlink)
	if fd.laddr == nil {
		fd.laddr = &net.UnixAddr{Name: path, Net: network}
	}
	return fd, nil
}

// bindListen binds s to sa (ListenConfig's ReusePort and Control first)
// and, for a stream socket, listens.
func bindListen(lc *ListenConfig, s, sotype int, network, address string, sa unix.Sockaddr) error {
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
	if err := unix.Bind(s, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	if sotype != unix.SOCK_STREAM {
		return nil
	}
	backlog := lc.Backlog
	if backlog <= 0 {
		backlog = unix.SOMAXCONN
	}
	return os.NewSyscallError("listen", unix.Listen(s, backlog))
}

// boundFD makes the fd of a bound socket: a listener (stream) or a
// datagram socket.
func boundFD(l *core.Loop, s, family, sotype int, network, unlink string) *netFD {
	fd := newFD(l, s, family, sotype, network)
	if sotype == unix.SOCK_STREAM {
		fd.ln = &listenState{unlink: unlink}
	}
	if sa, err := unix.Getsockname(s); err == nil {
		fd.laddr = addrOf(sa, sotype)
	}
	return fd
}

// ctrlConn is the RawConn given to ListenConfig.Control: the socket is not
// on the loop yet, so only Control works.
type ctrlConn int

func (c ctrlConn) Control(f func(fd uintptr)) error { f(uintptr(c)); return nil }
func (c ctrlConn) Read(func(fd uintptr) bool) error {
	return os.NewSyscallError("read", unix.EOPNOTSUPP)
}
func (c ctrlConn) Write(func(fd uintptr) bool) error {
	return os.NewSyscallError("write", unix.EOPNOTSUPP)
}

// Back-off of a listener out of descriptors: first and longest wait.
const (
	backoffMin = 5 * time.Millisecond
	backoffMax = time.Second
)

// accept takes the next connection (see Listener.AcceptConn).
func (fd *netFD) accept(keepAlive time.Duration) (*netFD, error) {
	d := &fd.rd
	if err := fd.acquire(d); err != nil {
		return nil, err
	}
	defer fd.unlock(d)
	for {
		if d.expired() {
			return nil, os.ErrDeadlineExceeded
		}
		if b := fd.ln.backoff.Load(); b != 0 && nowMono() < b {
			if err := d.wait(waitSleep); err != nil {
				return nil, err
			}
			continue
		}
		ns, rsa, err := sysAccept(fd.sysfd)
		switch err {
		case nil:
			fd.ln.backoff.Store(0)
			fd.ln.backoffLen = 0
			return fd.accepted(ns, rsa, keepAlive), nil
		case unix.EAGAIN:
			if err := d.wait(waitIO); err != nil {
				return nil, err
			}
		case unix.EINTR, unix.ECONNABORTED:
			// A connection reset before it was taken: net skips it too.
		case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
			// The connection stays queued: accepting again at once would
			// fail again, so the next try waits, longer each time.
			ln := fd.ln
			ln.backoffLen = min(max(2*ln.backoffLen, int64(backoffMin)), int64(backoffMax))
			ln.backoff.Store(nowMono() + ln.backoffLen)
			return nil, os.NewSyscallError("accept", err)
		default:
			return nil, os.NewSyscallError("accept", err)
		}
	}
}

// accepted makes the fd of a new connection, with net's options.
func (fd *netFD) accepted(ns int, rsa unix.Sockaddr, keepAlive time.Duration) *netFD {
	c := newFD(fd.l, ns, int(fd.family), unix.SOCK_STREAM, fd.net)
	if sa, err := unix.Getsockname(ns); err == nil {
		c.laddr = addrOf(sa, unix.SOCK_STREAM)
	}
	c.raddr = addrOf(rsa, unix.SOCK_STREAM)
	if fd.family != unix.AF_UNIX {
		// Best effort, as net: a conn that cannot take them still works.
		_ = c.setNoDelay(true)
		_ = c.keepAlive(keepAlive)
	}
	if fd.l.InFiber() {
		// A conn is read first and waits for it most (an idle one waits
		// nothing else): its readable watcher is made here, on the
		// accepting fiber's stack, rather than on the stack of the fiber
		// that will read it, which it would grow from 2 KiB to 4 for good.
		c.rd.prepare()
	}
	return c
}
