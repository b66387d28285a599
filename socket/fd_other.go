//go:build !unix && !windows

package socket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// errUnsupported: the package needs the sockets of Unix or Winsock.
var errUnsupported = fmt.Errorf("socket: not available on %s: %w", runtime.GOOS, errors.ErrUnsupported)

// netFD is never made here: every constructor fails.
type netFD struct {
	net          string
	laddr, raddr net.Addr
	ln           *struct{}
}

func listen(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	return nil, &net.OpError{Op: "listen", Net: network, Err: errUnsupported}
}

func listenPacket(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
	return nil, &net.OpError{Op: "listen", Net: network, Err: errUnsupported}
}

func dial(ctx context.Context, l *core.Loop, network, address string) (*netFD, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: errUnsupported}
}

func fileFD(l *core.Loop, f *os.File, listener bool) (*netFD, error) {
	return nil, &net.OpError{Op: "file", Net: "file+net", Err: errUnsupported}
}

func (fd *netFD) read([]byte) (int, error)                       { return 0, errUnsupported }
func (fd *netFD) write([]byte) (int, error)                      { return 0, errUnsupported }
func (fd *netFD) sendFile(io.Reader) (int64, error, bool)        { return 0, errUnsupported, true }
func (fd *netFD) close() error                                   { return errUnsupported }
func (fd *netFD) shutdown(read bool) error                       { return errUnsupported }
func (fd *netFD) setDeadline(t time.Time, r, w bool) error       { return errUnsupported }
func (fd *netFD) setNoDelay(bool) error                          { return errUnsupported }
func (fd *netFD) setKeepAlive(bool) error                        { return errUnsupported }
func (fd *netFD) setKeepAlivePeriod(time.Duration) error         { return errUnsupported }
func (fd *netFD) setBuffer(read bool, bytes int) error           { return errUnsupported }
func (fd *netFD) rawControl(func(uintptr)) error                 { return errUnsupported }
func (fd *netFD) rawWait(write bool, f func(uintptr) bool) error { return errUnsupported }
func (fd *netFD) dup() (*os.File, error)                         { return nil, errUnsupported }
func (fd *netFD) accept(time.Duration) (*netFD, error)           { return nil, errUnsupported }
func (fd *netFD) dgram() bool                                    { return false }
func (fd *netFD) unixFamily() bool                               { return false }
func (fd *netFD) checkPeer() error                               { return errUnsupported }
func (fd *netFD) readFrom(p, oob []byte, msg bool) (n, oobn, flags int, from peer, err error) {
	return 0, 0, 0, peer{}, errUnsupported
}
func (fd *netFD) writeTo(p, oob []byte, to peer, msg bool) (n, oobn int, err error) {
	return 0, 0, errUnsupported
}
func (fd *netFD) udpAddrPort(a *net.UDPAddr) (netip.AddrPort, error) {
	return netip.AddrPort{}, errUnsupported
}

// PeerWatch is peerwatch.go's; no conn is ever made here to watch.
type PeerWatch struct{}

func (w *PeerWatch) Start(c *Conn, gone func()) error { return errUnsupported }
func (w *PeerWatch) Watching() bool                   { return false }
func (w *PeerWatch) Stop() bool                       { return false }
