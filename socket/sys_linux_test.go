//go:build linux && !386 && !s390x

package socket

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// The direct datagram calls (sys_linux.go) and those through
// golang.org/x/sys/unix (sys_portable_unix.go, what other systems use)
// agree: each pair of sender and receiver moves the datagram and reports
// the same sender, for IPv4, IPv6, unix paths, Linux's abstract names and
// unnamed unix sockets.
func TestDatagramCallsAgree(t *testing.T) {
	type send func(s int, p []byte, to *rawAddr) (int, error)
	type recv func(s int, p []byte, from *rawAddr) (int, error)
	sends := map[string]send{
		"sendto": sendto, "sendtoPortable": sendtoPortable,
		"sendmsg": func(s int, p []byte, to *rawAddr) (int, error) {
			n, _, err := sendmsg(s, p, nil, to)
			return n, err
		},
		"sendmsgPortable": func(s int, p []byte, to *rawAddr) (int, error) {
			n, _, err := sendmsgPortable(s, p, nil, to)
			return n, err
		},
	}
	recvs := map[string]recv{
		"recvfrom": recvfrom, "recvfromPortable": recvfromPortable,
		"recvmsg": func(s int, p []byte, from *rawAddr) (int, error) {
			n, _, _, err := recvmsg(s, p, nil, 0, from)
			return n, err
		},
		"recvmsgPortable": func(s int, p []byte, from *rawAddr) (int, error) {
			n, _, _, err := recvmsgPortable(s, p, nil, 0, from)
			return n, err
		},
	}
	dir := t.TempDir()
	abstract := fmt.Sprintf("@eventloop-socket-test-%d", unix.Getpid())
	for _, tc := range []struct {
		name     string
		family   int
		recvAt   unix.Sockaddr
		sendAt   unix.Sockaddr // nil: unnamed
		wantFrom string
	}{
		{"IPv4", unix.AF_INET, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, "127.0.0.1"},
		{"IPv6", unix.AF_INET6, &unix.SockaddrInet6{Addr: netip.IPv6Loopback().As16()}, &unix.SockaddrInet6{Addr: netip.IPv6Loopback().As16()}, "::1"},
		{"Path", unix.AF_UNIX, &unix.SockaddrUnix{Name: filepath.Join(dir, "r")}, &unix.SockaddrUnix{Name: filepath.Join(dir, "s")}, filepath.Join(dir, "s")},
		{"Abstract", unix.AF_UNIX, &unix.SockaddrUnix{Name: abstract + "r"}, &unix.SockaddrUnix{Name: abstract + "s"}, abstract + "s"},
		{"Unnamed", unix.AF_UNIX, &unix.SockaddrUnix{Name: filepath.Join(dir, "u")}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dgramSocket(t, tc.family, tc.recvAt)
			s := dgramSocket(t, tc.family, tc.sendAt)
			rsa, err := unix.Getsockname(r)
			if err != nil {
				t.Fatal(err)
			}
			var to rawAddr
			to.fromSockaddr(rsa)
			var ssa unix.Sockaddr
			if tc.sendAt != nil {
				if ssa, err = unix.Getsockname(s); err != nil {
					t.Fatal(err)
				}
			}
			for sn, sf := range sends {
				for rn, rf := range recvs {
					msg := []byte(sn + "→" + rn)
					dst := to // the direct calls rewrite an abstract name in place
					if n, err := sf(s, msg, &dst); n != len(msg) || err != nil {
						t.Fatalf("%s: %d, %v", sn, n, err)
					}
					buf := make([]byte, 64)
					var from rawAddr
					n, err := rf(r, buf, &from)
					if err != nil || string(buf[:n]) != string(msg) {
						t.Fatalf("%s after %s: %q, %v", rn, sn, buf[:n], err)
					}
					var got string
					if tc.family == unix.AF_UNIX {
						got = from.unixName()
					} else {
						ap := from.addrPort()
						got = ap.Addr().String()
						if want := sockaddrPort(ssa); int(ap.Port()) != want {
							t.Errorf("%s after %s: port %d, want %d", rn, sn, ap.Port(), want)
						}
					}
					if got != tc.wantFrom {
						t.Errorf("%s after %s: sender %q, want %q", rn, sn, got, tc.wantFrom)
					}
				}
			}
		})
	}
}

func dgramSocket(t *testing.T, family int, at unix.Sockaddr) int {
	t.Helper()
	s, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s) })
	if at != nil {
		if err := unix.Bind(s, at); err != nil {
			t.Fatalf("bind %v: %v", at, err)
		}
	}
	return s
}

func sockaddrPort(sa unix.Sockaddr) int {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return sa.Port
	case *unix.SockaddrInet6:
		return sa.Port
	}
	return -1
}

// A unix socket listened on the empty name is bound to a name the kernel
// picks (autobind, in the abstract namespace), and says it, as net's:
// "@" and five hex digits.
func TestListenUnixAutobind(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "unix", "")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		c, err := ListenPacket(l, "unixgram", "")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, a := range []net.Addr{ln.Addr(), c.LocalAddr()} {
			if name := a.String(); len(name) != 6 || name[0] != '@' {
				t.Errorf("%s bound to the empty name says %q, want the kernel's name, as net's", a.Network(), name)
			}
		}
	})
}

// A datagram may go to an abstract unix name that fills the whole
// sun_path (108 bytes, its leading "@" the NUL), or all of it but the
// byte a path's NUL would take, as net's may, here to names that net's
// sockets hold; a name of 109 bytes is refused.
func TestUnixgramToAFullAbstractName(t *testing.T) {
	for _, size := range []int{108, 107} {
		name := fmt.Sprintf("@%0*d", size-1, os.Getpid())
		nc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		t.Run(fmt.Sprintf("%d bytes", size), func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				c, err := ListenPacket(l, "unixgram", "")
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := c.WriteToUnix([]byte("full"), &net.UnixAddr{Name: name, Net: "unixgram"}); err != nil {
					t.Fatalf("WriteToUnix to an abstract name of %d bytes: %v", size, err)
				}
				buf := make([]byte, 8)
				nc.SetReadDeadline(time.Now().Add(10 * time.Second))
				if n, _, err := nc.ReadFromUnix(buf); err != nil || string(buf[:n]) != "full" {
					t.Errorf("%d bytes: net's socket read %q, %v", size, buf[:n], err)
				}
				if _, err := c.WriteToUnix([]byte("x"), &net.UnixAddr{Name: fmt.Sprintf("@%0108d", 0), Net: "unixgram"}); err == nil {
					t.Error("WriteToUnix to an abstract name of 109 bytes: no error")
				}
			})
		})
	}
}

// An abstract unix name that fills the whole sun_path (108 bytes) may be
// listened on, dialed and bound, as net's may; one of 109 bytes is
// refused.
func TestListenAndDialAFullAbstractName(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		full := fmt.Sprintf("@%0107d", os.Getpid())
		ln, err := Listen(l, "unix", full)
		if err != nil {
			t.Fatalf("Listen on an abstract name of 108 bytes: %v", err)
		}
		defer ln.Close()
		if got := ln.Addr().String(); got != full {
			t.Errorf("the listener says %q, want %q", got, full)
		}
		nc, err := net.Dial("unix", full)
		if err != nil {
			t.Fatalf("net.Dial to it: %v", err)
		}
		nc.Close()
		c, err := Dial(l, "unix", full)
		if err != nil {
			t.Fatalf("Dial to an abstract name of 108 bytes: %v", err)
		}
		if got := c.RemoteAddr().String(); got != full {
			t.Errorf("the dialed conn's peer says %q, want %q", got, full)
		}
		c.Close()
		pc, err := ListenPacket(l, "unixgram", full)
		if err != nil {
			t.Fatalf("ListenPacket on an abstract name of 108 bytes: %v", err)
		}
		pc.Close()
		if ln, err := Listen(l, "unix", full+"0"); err == nil {
			ln.Close()
			t.Error("Listen on an abstract name of 109 bytes: no error")
		}
	})
}

// An accept(2) that fails for a reason other than a want of descriptors or
// memory (here EINVAL: the listening socket was shut down) starts no
// back-off: the next Accept tries at once, and fails alike.
func TestAcceptErrorsThatDoNotBackOff(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := unix.Shutdown(ln.fd.pd.Sysfd(), unix.SHUT_RD); err != nil {
			t.Skipf("shutdown of a listening socket: %v", err)
		}
		for range 2 {
			if _, err := ln.Accept(); !errors.Is(err, unix.EINVAL) {
				t.Fatalf("Accept on a listener shut down: %v, want EINVAL", err)
			}
			if until := ln.fd.ln.backoff.until.Load(); until != 0 {
				t.Fatal("EINVAL started a back-off, as a want of descriptors does")
			}
		}
	})
}
