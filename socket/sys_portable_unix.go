//go:build unix

package socket

import "golang.org/x/sys/unix"

// The datagram system calls through golang.org/x/sys/unix, for the
// systems of sys_other.go, and built everywhere so that a test checks them
// against sys_linux.go's on Linux. Each costs an allocation for the
// address.

func recvfromPortable(s int, p []byte, from *rawAddr) (int, error) {
	n, sa, err := unix.Recvfrom(s, p, 0)
	if err != nil {
		from.len = 0
		return 0, err
	}
	from.fromSockaddr(sa)
	return n, nil
}

func sendtoPortable(s int, p []byte, to *rawAddr) (int, error) {
	var sa unix.Sockaddr
	if to != nil && to.len != 0 {
		sa = to.toSockaddr()
	}
	if err := unix.Sendto(s, p, 0, sa); err != nil {
		return 0, err
	}
	return len(p), nil
}

func recvmsgPortable(s int, p, oob []byte, flags int, from *rawAddr) (n, oobn, recvflags int, err error) {
	n, oobn, recvflags, sa, err := unix.Recvmsg(s, p, oob, flags)
	if err != nil {
		from.len = 0
		return 0, 0, 0, err
	}
	from.fromSockaddr(sa)
	return n, oobn, recvflags, nil
}

func sendmsgPortable(s int, p, oob []byte, to *rawAddr) (n, oobn int, err error) {
	var sa unix.Sockaddr
	if to != nil && to.len != 0 {
		sa = to.toSockaddr()
	}
	n, err = unix.SendmsgN(s, p, oob, sa, 0)
	if err != nil {
		return 0, 0, err
	}
	return n, len(oob), nil
}
