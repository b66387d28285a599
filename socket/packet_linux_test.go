//go:build linux

package socket

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// ReadMsgUDP and WriteMsgUDP carry control messages: IP_PKTINFO names the
// destination of a datagram received (here 127.0.0.1) and picks the
// source of one sent. On a connected socket WriteMsgUDP takes no address.
func TestPacketControlMessages(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		r, s := listenOurs(t, l, "udp4"), listenOurs(t, l, "udp4")
		rc, err := r.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var serr error
		rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1) })
		if serr != nil {
			t.Fatal(serr)
		}
		to := r.LocalAddr().(*net.UDPAddr)
		fiber(l, func() {
			oob := unix.PktInfo4(&unix.Inet4Pktinfo{Spec_dst: [4]byte{127, 0, 0, 1}})
			if n, oobn, err := s.WriteMsgUDP([]byte("with pktinfo"), oob, to); n != 12 || oobn != len(oob) || err != nil {
				t.Errorf("WriteMsgUDP: %d, %d, %v", n, oobn, err)
			}
			buf, cbuf := make([]byte, 32), make([]byte, 128)
			n, oobn, flags, ap, err := r.ReadMsgUDPAddrPort(buf, cbuf)
			if err != nil || string(buf[:n]) != "with pktinfo" || flags != 0 || ap != s.LocalAddr().(*net.UDPAddr).AddrPort() {
				t.Errorf("ReadMsgUDPAddrPort: %q, flags %#x, from %v, %v", buf[:n], flags, ap, err)
				return
			}
			msgs, err := unix.ParseSocketControlMessage(cbuf[:oobn])
			if err != nil || len(msgs) != 1 || msgs[0].Header.Type != unix.IP_PKTINFO {
				t.Errorf("control messages %v, %v; want one IP_PKTINFO", msgs, err)
				return
			}
			// struct in_pktinfo: ifindex, spec_dst, addr (the destination).
			if d := msgs[0].Data; len(d) < unix.SizeofInet4Pktinfo || netip.AddrFrom4([4]byte(d[8:12])) != netip.MustParseAddr("127.0.0.1") {
				t.Errorf("IP_PKTINFO %v, want the destination 127.0.0.1", d)
			}
			c, err := Dial(l, "udp4", to.String())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			if _, _, err := c.PacketConn().WriteMsgUDP([]byte("connected"), nil, nil); err != nil {
				t.Errorf("WriteMsgUDP on a connected socket: %v", err)
			}
			if _, _, err := c.PacketConn().WriteMsgUDPAddrPort([]byte("x"), nil, to.AddrPort()); err == nil {
				t.Error("WriteMsgUDPAddrPort with an address on a connected socket: no error")
			}
			n, _, _, _, err = r.ReadMsgUDP(buf, nil)
			if err != nil || string(buf[:n]) != "connected" {
				t.Errorf("ReadMsgUDP: %q, %v", buf[:n], err)
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
	})
}

// An abstract unix name may be written "@name" or, as x/sys and net take
// it too, "\x00name": a datagram sent to either reaches the socket net
// bound to that name (not to "name\x00").
func TestPacketAbstractNameForms(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		name := fmt.Sprintf("eventloop-socket-test-%d-%s", os.Getpid(), l.Driver().Name())
		peer, err := net.ListenPacket("unixgram", "@"+name)
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		c := listenOurs(t, l, "unixgram")
		fiber(l, func() {
			for _, form := range []string{"@" + name, "\x00" + name} {
				if _, err := c.WriteToUnix([]byte(form[:1]), &net.UnixAddr{Name: form, Net: "unixgram"}); err != nil {
					t.Errorf("WriteToUnix to %q: %v", form, err)
				}
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		peer.SetReadDeadline(time.Now().Add(2 * time.Second))
		for _, want := range []string{"@", "\x00"} {
			n, _, err := peer.ReadFrom(buf)
			if err != nil || string(buf[:n]) != want {
				t.Errorf("the peer read %q, %v; want %q", buf[:n], err, want)
			}
		}
	})
}
