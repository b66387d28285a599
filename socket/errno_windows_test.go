//go:build windows

package socket

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/windows"
)

// A Winsock error comes out as net's does on Windows (the same
// syscall.Errno for errors.As, the same message, errors.Is with the
// WSAE* name) and matches the Unix errno of the same meaning as well,
// which net's does not (errno_windows.go).
func TestWinsockErrorsMatchBothNames(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_, ours := Listen(l, "tcp4", addr)
		_, nets := net.Listen("tcp4", addr)
		sameAsNet(t, "a busy port", ours, nets, windows.WSAEADDRINUSE, syscall.EADDRINUSE)
		ln.Close()
		_, ours = Dial(l, "tcp4", addr)
		_, nets = net.Dial("tcp4", addr)
		sameAsNet(t, "a refused dial", ours, nets, windows.WSAECONNREFUSED, syscall.ECONNREFUSED)
	})
	for _, c := range []struct {
		errno  syscall.Errno
		is     []error
		isNot  []error
		timout bool
	}{
		{windows.WSAECONNRESET, []error{syscall.ECONNRESET, windows.WSAECONNRESET}, []error{syscall.EPIPE}, false},
		{windows.WSAESHUTDOWN, []error{syscall.EPIPE}, nil, false},
		{windows.WSAEWOULDBLOCK, []error{syscall.EAGAIN, syscall.EWOULDBLOCK}, nil, true},
		{windows.WSAEACCES, []error{syscall.EACCES, os.ErrPermission}, nil, false},
		{windows.WSAETIMEDOUT, []error{syscall.ETIMEDOUT}, nil, true},
		{windows.WSAEMSGSIZE, []error{syscall.EMSGSIZE}, nil, false},
		{windows.WSAEDISCON, []error{windows.WSAEDISCON}, []error{syscall.ECONNRESET, syscall.EINVAL}, false}, // none on Unix
	} {
		err := sysError("call", c.errno)
		for _, target := range c.is {
			if !errors.Is(err, target) {
				t.Errorf("%v (%d) does not match %v", err, uint(c.errno), target)
			}
		}
		for _, target := range c.isNot {
			if errors.Is(err, target) {
				t.Errorf("%v (%d) matches %v", err, uint(c.errno), target)
			}
		}
		var ne net.Error = &net.OpError{Op: "read", Net: "tcp", Err: err}
		if ne.Timeout() != c.timout {
			t.Errorf("%v: Timeout() = %v", err, ne.Timeout())
		}
	}
	if err := sysError("accept", windows.WSAEMFILE); !(&net.OpError{Op: "accept", Err: err}).Temporary() {
		t.Errorf("%v is not temporary, as EMFILE is", err)
	}
}

func sameAsNet(t *testing.T, what string, ours, nets error, wsa, unix syscall.Errno) {
	t.Helper()
	var oe *net.OpError
	var oErrno, nErrno syscall.Errno
	switch {
	case ours == nil || nets == nil:
		t.Fatalf("%s: ours %v, net's %v: want errors", what, ours, nets)
	case !errors.As(ours, &oe) || !errors.As(ours, &oErrno) || !errors.As(nets, &nErrno):
		t.Errorf("%s: ours %#v, net's %#v: want a *net.OpError wrapping a syscall.Errno", what, ours, nets)
	case oErrno != nErrno || oErrno != wsa:
		t.Errorf("%s: errno %d, net's %d, want %d", what, uint(oErrno), uint(nErrno), uint(wsa))
	case !errors.Is(ours, wsa) || !errors.Is(ours, unix):
		t.Errorf("%s: %v does not match both %v and %v", what, ours, wsa, unix)
	case !strings.HasSuffix(ours.Error(), wsa.Error()) || !strings.HasSuffix(nets.Error(), wsa.Error()):
		t.Errorf("%s: ours %q, net's %q: want both to end in %q", what, ours, nets, wsa.Error())
	}
}
