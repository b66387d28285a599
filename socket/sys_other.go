//go:build unix && !(linux && !386 && !s390x)

package socket

// Here the datagram calls go through golang.org/x/sys/unix: these systems
// make them through the C library (darwin, OpenBSD, Solaris, AIX) or
// multiplex them (linux/386 and linux/s390x), and FreeBSD, NetBSD and
// DragonFly, which could take sys_linux.go's direct calls, are not tested
// here. One allocation per datagram, for its address.

func recvfrom(s int, p []byte, from *rawAddr) (int, error) { return recvfromPortable(s, p, from) }

func sendto(s int, p []byte, to *rawAddr) (int, error) { return sendtoPortable(s, p, to) }

func recvmsg(s int, p, oob []byte, flags int, from *rawAddr) (n, oobn, recvflags int, err error) {
	return recvmsgPortable(s, p, oob, flags, from)
}

func sendmsg(s int, p, oob []byte, to *rawAddr) (n, oobn int, err error) {
	return sendmsgPortable(s, p, oob, to)
}
