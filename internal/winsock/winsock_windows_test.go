//go:build windows

package winsock

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

func pair(t *testing.T) (a, b windows.Handle) {
	t.Helper()
	a, b, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(a); Close(b) })
	return a, b
}

// A pair is connected both ways, non-blocking, with Nagle off, and Poll
// sees what arrives.
func TestPair(t *testing.T) {
	a, b := pair(t)
	var buf [8]byte
	if _, err := Recv(b, buf[:]); !errors.Is(err, windows.WSAEWOULDBLOCK) {
		t.Fatalf("Recv with nothing sent: %v, want WSAEWOULDBLOCK (non-blocking)", err)
	}
	for _, h := range []windows.Handle{a, b} {
		if v, err := windows.GetsockoptInt(h, windows.IPPROTO_TCP, windows.TCP_NODELAY); err != nil || v == 0 {
			t.Errorf("TCP_NODELAY of %d: %d, %v; want on", h, v, err)
		}
	}
	if n, err := Send(a, []byte("x")); n != 1 || err != nil {
		t.Fatalf("Send = %d, %v", n, err)
	}
	fds := []PollFd{{Fd: b, Events: POLLIN}, {Fd: Ignored, Events: POLLIN}}
	if n, err := Poll(fds, 1000); n != 1 || err != nil || fds[0].Revents&POLLRDNORM == 0 {
		t.Fatalf("Poll = %d, %v, revents %#x; want b readable", n, err, fds[0].Revents)
	}
	if n, err := Recv(b, buf[:]); n != 1 || err != nil || buf[0] != 'x' {
		t.Fatalf("Recv = %d, %v, %q", n, err, buf[:n])
	}
}

// Type tells a socket from another handle, and from a closed one, the way
// the drivers and the core rely on: WSAENOTSOCK.
func TestType(t *testing.T) {
	a, _ := pair(t)
	if typ, err := Type(a); typ != windows.SOCK_STREAM || err != nil {
		t.Fatalf("Type of a TCP socket: %d, %v", typ, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := Type(windows.Handle(r.Fd())); !errors.Is(err, windows.WSAENOTSOCK) {
		t.Fatalf("Type of a pipe: %v, want WSAENOTSOCK", err)
	}
	s, err := Socket()
	if err != nil {
		t.Fatal(err)
	}
	Close(s)
	if _, err := Type(s); !errors.Is(err, windows.WSAENOTSOCK) {
		t.Fatalf("Type of a closed socket: %v, want WSAENOTSOCK", err)
	}
}

// Name: an unbound socket has no local address, an unconnected one no
// peer; a pair's ends name each other.
func TestName(t *testing.T) {
	s, err := Socket()
	if err != nil {
		t.Fatal(err)
	}
	defer Close(s)
	var sa windows.RawSockaddrAny
	if _, err := Name(s, false, &sa); !errors.Is(err, windows.WSAEINVAL) {
		t.Errorf("local name of an unbound socket: %v, want WSAEINVAL", err)
	}
	if _, err := Name(s, true, &sa); !errors.Is(err, windows.WSAENOTCONN) {
		t.Errorf("peer name of an unconnected socket: %v, want WSAENOTCONN", err)
	}
	a, b := pair(t)
	var local, peer windows.RawSockaddrAny
	na, err := Name(a, false, &local)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Name(b, true, &peer)
	if err != nil {
		t.Fatal(err)
	}
	if na != nb || local != peer {
		t.Errorf("a's local address is not b's peer address")
	}
}
