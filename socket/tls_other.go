//go:build !unix && !windows

package socket

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// TLSConn is crypto/tls over a Conn; there are no Conns here.
type TLSConn struct{ c *Conn }

func TLSServer(c *Conn, config *tls.Config) *TLSConn { return &TLSConn{c} }
func TLSClient(c *Conn, config *tls.Config) *TLSConn { return &TLSConn{c} }

func (t *TLSConn) NetConn() *Conn                             { return t.c }
func (t *TLSConn) Handshake() error                           { return errUnsupported }
func (t *TLSConn) HandshakeContext(ctx context.Context) error { return errUnsupported }
func (t *TLSConn) ConnectionState() tls.ConnectionState       { return tls.ConnectionState{} }
func (t *TLSConn) Read(p []byte) (int, error)                 { return 0, errUnsupported }
func (t *TLSConn) Write(p []byte) (int, error)                { return 0, errUnsupported }
func (t *TLSConn) Close() error                               { return errUnsupported }
func (t *TLSConn) CloseWrite() error                          { return errUnsupported }
func (t *TLSConn) LocalAddr() net.Addr                        { return nil }
func (t *TLSConn) RemoteAddr() net.Addr                       { return nil }
func (t *TLSConn) SetDeadline(d time.Time) error              { return errUnsupported }
func (t *TLSConn) SetReadDeadline(d time.Time) error          { return errUnsupported }
func (t *TLSConn) SetWriteDeadline(d time.Time) error         { return errUnsupported }
