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
	opErr := func(addr net.Addr, err error) error {
		return &net.OpError{Op: "listen", Net: network, Addr: addr, Err: err}
	}
	switch network {
	case "tcp", "tcp4", "tcp6":
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
		laddr := net.TCPAddrFromAddrPort(ap)
		family, v6only := familyOf(network, ap, true)
		fd, err := listenInet(lc, l, network, family, v6only, ap)
		if err != nil && network == "tcp" && family == unix.AF_INET6 && !ap.Addr().IsValid() && noIPv6(err) {
			// A system without IPv6: "tcp" on the wildcard is IPv4 alone.
			fd, err = listenInet(lc, l, network, unix.AF_INET, false, ap)
		}
		if err != nil {
			return nil, opErr(laddr, err)
		}
		return fd, nil
	case "unix":
		laddr := &net.UnixAddr{Name: address, Net: "unix"}
		fd, err := listenUnix(lc, l, address)
		if err != nil {
			return nil, opErr(laddr, err)
		}
		return fd, nil
	}
	return nil, opErr(nil, net.UnknownNetworkError(network))
}

func noIPv6(err error) bool {
	return isErrno(err, unix.EAFNOSUPPORT) || isErrno(err, unix.EPROTONOSUPPORT) || isErrno(err, unix.EADDRNOTAVAIL)
}

func listenInet(lc *ListenConfig, l *core.Loop, network string, family int, v6only bool, ap netip.AddrPort) (*netFD, error) {
	sa, err := inetSockaddr(family, ap)
	if err != nil {
		return nil, err
	}
	s, err := sysSocket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1))
	if err == nil && family == unix.AF_INET6 {
		err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(s, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, boolInt(v6only)))
	}
	if err == nil {
		err = bindListen(lc, s, network, ap.String(), sa)
	}
	if err != nil {
		unix.Close(s)
		return nil, err
	}
	return listenerFD(l, s, family, network, "")
}

func listenUnix(lc *ListenConfig, l *core.Loop, path string) (*netFD, error) {
	s, err := sysSocket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := bindListen(lc, s, "unix", path, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(s)
		return nil, err
	}
	unlink := path
	if path == "" || path[0] == '@' {
		unlink = "" // abstract (Linux): no file to remove
	}
	fd, err := listenerFD(l, s, unix.AF_UNIX, "unix", unlink)
	if err == nil && fd.laddr == nil {
		fd.laddr = &net.UnixAddr{Name: path, Net: "unix"}
	}
	return fd, err
}

func bindListen(lc *ListenConfig, s int, network, address string, sa unix.Sockaddr) error {
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
	backlog := lc.Backlog
	if backlog <= 0 {
		backlog = unix.SOMAXCONN
	}
	return os.NewSyscallError("listen", unix.Listen(s, backlog))
}

func listenerFD(l *core.Loop, s, family int, network, unlink string) (*netFD, error) {
	fd := newFD(l, s, family, network)
	fd.listener = true
	fd.unlink = unlink
	if sa, err := unix.Getsockname(s); err == nil {
		fd.laddr = addrOf(sa)
	}
	return fd, nil
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
		if b := fd.backoff.Load(); b != 0 && nowMono() < b {
			if err := d.wait(waitSleep); err != nil {
				return nil, err
			}
			continue
		}
		ns, rsa, err := sysAccept(fd.sysfd)
		switch err {
		case nil:
			fd.backoff.Store(0)
			fd.backoffLen = 0
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
			fd.backoffLen = min(max(2*fd.backoffLen, int64(backoffMin)), int64(backoffMax))
			fd.backoff.Store(nowMono() + fd.backoffLen)
			return nil, os.NewSyscallError("accept", err)
		default:
			return nil, os.NewSyscallError("accept", err)
		}
	}
}

// accepted makes the fd of a new connection, with net's options.
func (fd *netFD) accepted(ns int, rsa unix.Sockaddr, keepAlive time.Duration) *netFD {
	c := newFD(fd.l, ns, fd.family, fd.net)
	if sa, err := unix.Getsockname(ns); err == nil {
		c.laddr = addrOf(sa)
	}
	c.raddr = addrOf(rsa)
	if fd.family != unix.AF_UNIX {
		// Best effort, as net: a conn that cannot take them still works.
		_ = c.setNoDelay(true)
		_ = c.keepAlive(keepAlive)
	}
	return c
}
