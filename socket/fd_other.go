//go:build !unix

package socket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// errUnsupported: the package needs non-blocking Unix sockets.
var errUnsupported = fmt.Errorf("socket: not available on %s: %w", runtime.GOOS, errors.ErrUnsupported)

// netFD is never made here: every constructor fails.
type netFD struct {
	net          string
	laddr, raddr net.Addr
	listener     bool
}

func listen(ctx context.Context, lc *ListenConfig, l *core.Loop, network, address string) (*netFD, error) {
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
