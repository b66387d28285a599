//go:build unix || windows

package socket

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

func dial(ctx context.Context, l *core.Loop, network, address string) (*netFD, error) {
	opErr := func(addr net.Addr, err error) error {
		return &net.OpError{Op: "dial", Net: network, Addr: addr, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, opErr(nil, ctxError(err))
	}
	sotype := sockStream
	switch network {
	case "udp", "udp4", "udp6", "unixgram":
		sotype = sockDgram
	}
	switch network {
	case "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6":
		aps, err := resolve(ctx, l, network, address)
		if err != nil {
			return nil, opErr(nil, err)
		}
		var first error
		for _, ap := range aps {
			if wildcardDialsLoopback && (!ap.Addr().IsValid() || ap.Addr().IsUnspecified()) {
				ap = netip.AddrPortFrom(loopbackOf(network), ap.Port())
			}
			var raddr net.Addr = net.TCPAddrFromAddrPort(ap)
			if sotype == sockDgram {
				raddr = net.UDPAddrFromAddrPort(ap)
			}
			family, _ := familyOf(network, ap, false)
			sa, err := inetSockaddr(family, ap)
			if err == nil {
				var fd *netFD
				if fd, err = dialOne(ctx, l, network, family, sotype, sa, raddr); err == nil {
					return fd, nil
				}
			}
			if first == nil {
				first = opErr(raddr, err)
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	case "unix", "unixgram":
		raddr := &net.UnixAddr{Name: address, Net: network}
		if err := unixSockets(); err != nil {
			return nil, opErr(raddr, err)
		}
		fd, err := dialOne(ctx, l, network, afUnix, sotype, &sockaddrUnix{Name: address}, raddr)
		if err != nil {
			return nil, opErr(raddr, err)
		}
		return fd, nil
	}
	return nil, opErr(nil, net.UnknownNetworkError(network))
}

// dialOne makes one socket and connects it. A datagram socket connects at
// once: connect(2) only sets its peer.
func dialOne(ctx context.Context, l *core.Loop, network string, family, sotype int, sa sockaddr, raddr net.Addr) (*netFD, error) {
	s, err := sysSocket(family, sotype, 0)
	if err != nil {
		return nil, wrapSyscall("socket", err)
	}
	fd, err := newFD(l, s, family, sotype, network)
	if err != nil {
		_ = sysClose(s)
		return nil, err
	}
	if sotype == sockDgram && family != afUnix {
		if err := dgramSockopts(s, family); err != nil {
			_ = fd.close()
			return nil, err
		}
	}
	if err := fd.connect(ctx, sa); err != nil {
		_ = fd.close()
		return nil, err
	}
	if rsa, err := sysGetpeername(s); err == nil {
		if a := addrOf(rsa, sotype); a != nil {
			raddr = a
		}
	}
	fd.raddr = raddr
	if lsa, err := sysGetsockname(s); err == nil {
		fd.laddr = addrOf(lsa, sotype)
	}
	if family != afUnix && sotype == sockStream {
		_ = fd.setNoDelay(true)
		_ = fd.keepAlive(0)
	}
	return fd, nil
}

// connect connects the socket: a non-blocking connect(2), finished when
// the socket turns writable, SO_ERROR saying how it went. ctx ending
// wakes the wait.
func (fd *netFD) connect(ctx context.Context, sa sockaddr) error {
	// The wait holds a reference, as every wait does; the conn is the
	// dialer's alone until connect returns, so it takes no lock.
	if !fd.incref() {
		return fd.closedErr()
	}
	defer fd.decref()
	if ctx.Done() != nil {
		// ctx ending wakes the wait as a passed deadline would; the conn
		// has no deadline of its own yet, and the wake says nothing more
		// than "look again".
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			fd.pd.SetDeadline(core.Write, time.Unix(1, 0))
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired
				fd.pd.SetDeadline(core.Write, time.Time{})
			}
		}()
	}
	// connecting: connect(2) said that it goes on, and SO_ERROR says how.
	// reconnects bounds the connect(2) made again: where SO_ERROR was
	// cleared behind our back, a failed connect must not start over.
	connecting, reconnects := false, 0
	err := fd.retry(core.Write, connectOp, func() error {
		if connecting {
			if err := ctx.Err(); err != nil {
				return ctxError(err)
			}
			v, err := getsockoptInt(fd.pd.Sysfd(), solSocket, soError)
			if err != nil {
				return wrapSyscall("getsockopt", err)
			}
			switch e := syscall.Errno(v); e {
			case errInProgress, errAlready, errIntr:
				return errAgain
			case errIsConn:
				return nil
			case 0:
				if _, err := sysGetpeername(fd.pd.Sysfd()); err == nil {
					return nil
				}
				// Writable, no error, not connected: the poller read
				// SO_ERROR, which clears it (libkqueue does, to fill in
				// its event), and the driver passed the error on; else a
				// spurious wake, or an error read and lost, which
				// connect(2) again tells apart.
				if e := fd.pd.Errno(); e != 0 {
					return sysError(connectOp, e)
				}
				if reconnects++; reconnects > 3 {
					return sysError(connectOp, errConnAborted)
				}
				connecting = false
				return errAgainNow
			default:
				return sysError(connectOp, e)
			}
		}
		switch err := sysConnect(fd.pd.Sysfd(), sa); err {
		case nil, errIsConn:
			return nil
		case errInProgress, errAlready, errIntr:
			// EINTR too: the connect goes on without us, as net reads it.
			connecting = true
			return errAgain
		default:
			return wrapSyscall(connectOp, err)
		}
	})
	if err != nil {
		// The wait that ctx ended says so with a deadline.
		if cerr := ctx.Err(); cerr != nil {
			return ctxError(cerr)
		}
	}
	return err
}

// wildcardDialsLoopback: where connect(2) refuses the unspecified
// address (Winsock says WSAEADDRNOTAVAIL), a dial to it goes to the
// loopback address, as net's does on the same systems.
const wildcardDialsLoopback = runtime.GOOS == "windows" || runtime.GOOS == "openbsd" || runtime.GOOS == "aix"

// loopbackOf is net's loopback address for a network: ::1 for the "6"
// ones, 127.0.0.1 for the others.
func loopbackOf(network string) netip.Addr {
	if strings.HasSuffix(network, "6") {
		return netip.IPv6Loopback()
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// lookupNetIP resolves a host name; a test may stand in for the system.
var lookupNetIP = net.DefaultResolver.LookupNetIP

// resolve turns "host:port" into addresses for an inet network ("tcp",
// "udp4", ...), in the resolver's order. An empty host is the unspecified
// address (an invalid netip.Addr): the wildcard to listen on, the local
// system to dial.
func resolve(ctx context.Context, l *core.Loop, network, address string) ([]netip.AddrPort, error) {
	host, service, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := lookupPort(ctx, l, network, service)
	if err != nil {
		return nil, err
	}
	if host == "" {
		return []netip.AddrPort{netip.AddrPortFrom(netip.Addr{}, port)}, nil
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ipNet := "ip"
		if v := ipVersion(network); v != 0 {
			ipNet += string(v)
		}
		ips, err = offLoop(ctx, l, func(ctx context.Context) ([]netip.Addr, error) {
			return lookupNetIP(ctx, ipNet, host)
		})
		if err != nil {
			return nil, err
		}
	}
	var aps []netip.AddrPort
	for _, ip := range ips {
		v4 := ip.Unmap().Is4()
		if v := ipVersion(network); (v == '4' && !v4) || (v == '6' && v4) {
			continue
		}
		if v4 {
			ip = ip.Unmap()
		}
		aps = append(aps, netip.AddrPortFrom(ip, port))
	}
	if len(aps) == 0 {
		return nil, &net.AddrError{Err: "no suitable address found", Addr: host}
	}
	return aps, nil
}

func lookupPort(ctx context.Context, l *core.Loop, network, service string) (uint16, error) {
	if n, err := strconv.ParseUint(service, 10, 16); err == nil {
		return uint16(n), nil
	}
	p, err := offLoop(ctx, l, func(ctx context.Context) (int, error) {
		return net.DefaultResolver.LookupPort(ctx, network, service)
	})
	return uint16(p), err
}

// offLoop runs a blocking lookup: from a fiber of l through core.Await (the
// fiber suspends, the loop goes on), elsewhere in place. It ends with ctx,
// and with the loop.
func offLoop[T any](ctx context.Context, l *core.Loop, fn func(context.Context) (T, error)) (T, error) {
	if !l.InFiber() {
		return fn(ctx)
	}
	v, err := core.Await(l, func(loopCtx context.Context) (T, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(loopCtx, cancel)
		defer stop()
		return fn(ctx)
	})
	if errors.Is(err, core.ErrLoopClosed) {
		err = errLoopClosed
	}
	return v, err
}

func isErrno(err error, e syscall.Errno) bool { return errors.Is(err, e) }

func isNoProtoOpt(err error) bool { return isErrno(err, errNoProtoOpt) }
