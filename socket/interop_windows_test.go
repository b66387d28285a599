//go:build windows

package socket

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// FileConn and FileListener adopt a duplicate of the socket of an
// *os.File; File is refused with an error that says why
// (file_windows.go); a handle that is not a socket is refused. The files
// here are os.NewFile's over sockets of internal/winsock: package net's
// own File fails under Wine 8.0 (it takes the socket out of Go's
// completion port first, which Wine does not do).
func TestFiles(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		lh, _, err := winsock.Listen(4)
		if err != nil {
			t.Fatal(err)
		}
		lf := os.NewFile(uintptr(lh), "listener")
		ln, err := FileListener(l, lf)
		lf.Close() // the duplicate keeps the socket
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("Dial the adopted listener at %v: %v", ln.Addr(), err)
		}
		defer nc.Close()
		c, err := ln.AcceptConn()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if f, err := c.File(); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("File: %v, %v; want an error matching errors.ErrUnsupported", f, err)
		}
		a, b, err := winsock.Pair()
		if err != nil {
			t.Fatal(err)
		}
		defer winsock.Close(b)
		af := os.NewFile(uintptr(a), "a")
		ca, err := FileConn(l, af)
		af.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer ca.Close()
		if _, err := winsock.Send(b, []byte("via dup")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, err := ca.Read(buf)
		if string(buf[:n]) != "via dup" || err != nil {
			t.Fatalf("Read on FileConn's dup: %q, %v", buf[:n], err)
		}
		bsa, err := windows.Getsockname(b)
		if err != nil {
			t.Fatal(err)
		}
		if ra := ca.RemoteAddr().(*net.TCPAddr); !ra.IP.IsLoopback() || ra.Port != bsa.(*windows.SockaddrInet4).Port {
			t.Errorf("FileConn's peer %v, want the pair's other end, port %d", ra, bsa.(*windows.SockaddrInet4).Port)
		}
		// A handle that is not a socket.
		df, err := devNull()
		if err != nil {
			t.Fatal(err)
		}
		defer df.Close()
		if _, err := FileConn(l, df); err == nil {
			t.Error("FileConn of NUL: no error")
		}
	})
}
