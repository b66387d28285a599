//go:build (unix && !linux) || (linux && (386 || s390x)) || windows

package socket

// acceptFrom accepts a connection as sysAccept does and leaves its
// peer's address in from.
func acceptFrom(s int, from *rawAddr) (int, error) {
	ns, sa, err := sysAccept(s)
	if err != nil {
		return ns, err
	}
	from.fromSockaddr(sa)
	return ns, nil
}
