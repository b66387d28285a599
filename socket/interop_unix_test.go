//go:build unix

package socket

import (
	"net"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// FileConn and FileListener adopt a duplicate of a socket of net's; File
// duplicates ours; a descriptor that is not a stream socket is refused.
func TestFiles(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		nl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := nl.(*net.TCPListener).File()
		nl.Close()
		if err != nil {
			t.Fatal(err)
		}
		ln, err := FileListener(l, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		c, err := ln.AcceptConn()
		if err != nil {
			t.Fatal(err)
		}
		// A File of ours, adopted by FileConn: three handles on one socket.
		cf, err := c.File()
		if err != nil {
			t.Fatal(err)
		}
		// Named as net names its Files: network, local and remote address.
		if want := "tcp:" + c.LocalAddr().String() + "->" + c.RemoteAddr().String(); cf.Name() != want {
			t.Errorf("File's name %q, want %q", cf.Name(), want)
		}
		c2, err := FileConn(l, cf)
		cf.Close()
		if err != nil {
			t.Fatal(err)
		}
		c.Close() // c2 still holds the socket
		if _, err := nc.Write([]byte("via dup")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, err := c2.Read(buf)
		if string(buf[:n]) != "via dup" || err != nil {
			t.Fatalf("Read on FileConn's dup: %q, %v", buf[:n], err)
		}
		if c2.LocalAddr().String() != nc.RemoteAddr().String() || c2.RemoteAddr().String() != nc.LocalAddr().String() {
			t.Errorf("FileConn addresses %v -> %v, peer's %v -> %v", c2.LocalAddr(), c2.RemoteAddr(), nc.LocalAddr(), nc.RemoteAddr())
		}
		c2.Close()
		// A descriptor that is not a stream socket.
		df, err := devNull()
		if err != nil {
			t.Fatal(err)
		}
		defer df.Close()
		if _, err := FileConn(l, df); err == nil {
			t.Error("FileConn of /dev/null: no error")
		}
	})
}
