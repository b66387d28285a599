package socket

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The exported API is written once, here, for every GOOS; what a platform
// cannot do, its netFD says (fd_other.go returns errors matching
// errors.ErrUnsupported).

// Listen listens on address ("host:port" for "tcp", "tcp4" and "tcp6", a
// path for "unix") with the loop l, as ListenConfig{}.Listen does.
func Listen(l *core.Loop, network, address string) (*Listener, error) {
	var lc ListenConfig
	return lc.Listen(context.Background(), l, network, address)
}

// ListenConfig holds the options of a listening socket; the zero value is
// what Listen uses.
type ListenConfig struct {
	// Backlog is the length of the queue of connections not yet accepted;
	// 0 or less: the system's maximum (SOMAXCONN).
	Backlog int
	// ReusePort sets SO_REUSEPORT before bind, so that several listeners
	// (one per loop) can share one address and the kernel spreads the
	// connections among them. Windows has no SO_REUSEPORT: there it fails
	// with an error that names it.
	ReusePort bool
	// Control, if not nil, is called after the socket is made and before
	// it is bound, as net.ListenConfig.Control is. Its RawConn only
	// supports Control.
	Control func(network, address string, c syscall.RawConn) error
	// KeepAlive is the keep-alive period of accepted TCP connections, as in
	// net.ListenConfig: 0 enables keep-alives with the default period (15
	// s), a negative value disables them.
	KeepAlive time.Duration
}

// Listen listens on address with the loop l. ctx bounds the resolution of
// a host name, not the listener's life.
func (lc *ListenConfig) Listen(ctx context.Context, l *core.Loop, network, address string) (*Listener, error) {
	if l == nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: errNilLoop}
	}
	fd, err := listen(ctx, lc, l, network, address)
	if err != nil {
		return nil, err
	}
	return &Listener{fd: fd, keepAlive: lc.KeepAlive}, nil
}

// Dial connects to address on the named network ("tcp", "tcp4", "tcp6",
// "unix"; "udp", "udp4", "udp6", "unixgram" for a connected datagram
// socket) with the loop l, as DialContext with context.Background().
func Dial(l *core.Loop, network, address string) (*Conn, error) {
	return DialContext(context.Background(), l, network, address)
}

// DialContext connects to address with the loop l. A host name is resolved
// with net.DefaultResolver (from a fiber through core.Await, so that the
// loop goes on meanwhile); each address it yields is tried in turn. The
// connect is non-blocking and finished when the socket turns writable. If
// ctx ends first, the error wraps context.Canceled, or for a deadline is a
// timeout (errors.Is os.ErrDeadlineExceeded and context.DeadlineExceeded).
// TCP connections get TCP_NODELAY and 15 s keep-alives, as net.Dial's do.
// A datagram socket connects at once; each of its Writes sends one
// datagram and each Read returns one, and its PacketConn method gives the
// same socket as a *PacketConn, as net's *UDPConn is both.
func DialContext(ctx context.Context, l *core.Loop, network, address string) (*Conn, error) {
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errNilLoop}
	}
	fd, err := dial(ctx, l, network, address)
	if err != nil {
		return nil, err
	}
	return &Conn{fd: fd}, nil
}

// FileConn returns a connection on a duplicate of f's socket, which must be
// a connected stream socket (TCP or Unix); the duplicate is made
// non-blocking and close-on-exec. Closing the Conn does not close f, and
// the other way round, as with net.FileConn.
func FileConn(l *core.Loop, f *os.File) (*Conn, error) {
	if l == nil {
		return nil, &net.OpError{Op: "file", Net: "file+net", Err: errNilLoop}
	}
	fd, err := fileFD(l, f, false)
	if err != nil {
		return nil, err
	}
	return &Conn{fd: fd}, nil
}

// FileListener returns a listener on a duplicate of f's listening socket,
// as net.FileListener does.
func FileListener(l *core.Loop, f *os.File) (*Listener, error) {
	if l == nil {
		return nil, &net.OpError{Op: "file", Net: "file+net", Err: errNilLoop}
	}
	fd, err := fileFD(l, f, true)
	if err != nil {
		return nil, err
	}
	return &Listener{fd: fd}, nil
}

// fileAddr names the file of FileConn and FileListener in their errors.
type fileAddr string

func (a fileAddr) Network() string { return "file+net" }
func (a fileAddr) String() string  { return string(a) }

// Conn is a stream connection (TCP or Unix) on a loop, or a connected
// datagram socket (Dial on "udp" or "unixgram"). It implements net.Conn;
// every method is safe from any goroutine, and each waits as the package
// doc says: a fiber of the conn's loop suspends, any other goroutine
// blocks.
type Conn struct{ fd *netFD }

var _ net.Conn = (*Conn)(nil)

func (c *Conn) ok() bool { return c != nil && c.fd != nil }

// Read reads up to len(b) bytes (one datagram, cut to b, from a datagram
// socket). It returns 0, io.EOF at the end of a stream, and 0, nil at once
// for an empty b.
func (c *Conn) Read(b []byte) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	if c.fd.served() {
		if n, ok := c.fd.readKept(b); ok {
			return n, nil // what a Handler left (Serve)
		}
	}
	n, err := c.fd.read(b)
	if err != nil {
		err = c.fd.readError(err)
	}
	return n, err
}

// Write writes all of b unless an error (a deadline, Close, the peer)
// stops it; concurrent Writes do not interleave. On a datagram socket it
// sends b as one datagram, an empty one included.
func (c *Conn) Write(b []byte) (int, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	n, err := c.fd.write(b)
	if err != nil {
		err = c.fd.opError("write", err)
	}
	return n, err
}

// ReadFrom implements io.ReaderFrom, as *net.TCPConn does, so that
// io.Copy(conn, file) sends a file without copying it through user space:
// from an *os.File, or an io.LimitedReader of one, on Linux, darwin,
// FreeBSD and DragonFly, the kernel moves the bytes (sendfile(2)) from the
// file's offset, which it advances, and the caller waits while the socket
// is full as Write waits, under the write deadline. Anything else, and
// every source elsewhere (Windows included), is copied with r's Read and
// Write. It returns the bytes sent; the end of r is not an error. As
// net's, an error is a *net.OpError of Op "readfrom" (around the Write's
// own on the copy).
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if !c.ok() {
		return 0, syscall.EINVAL
	}
	n, err, handled := c.fd.sendFile(r)
	if !handled {
		n, err = readFromCopy(c, r)
	}
	if err != nil {
		err = c.fd.opError("readfrom", err)
	}
	return n, err
}

// Close closes the connection: every Read and Write waiting on it returns
// an error wrapping net.ErrClosed. A second Close returns such an error
// too.
func (c *Conn) Close() error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := c.fd.close(); err != nil {
		return c.fd.opError("close", err)
	}
	return nil
}

// CloseRead shuts down the reading side (shutdown(2) SHUT_RD).
func (c *Conn) CloseRead() error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := c.fd.shutdown(true); err != nil {
		return c.fd.opError("close", err)
	}
	return nil
}

// CloseWrite shuts down the writing side (shutdown(2) SHUT_WR): the peer
// reads EOF.
func (c *Conn) CloseWrite() error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := c.fd.shutdown(false); err != nil {
		return c.fd.opError("close", err)
	}
	return nil
}

// LocalAddr returns the local address (*net.TCPAddr, *net.UDPAddr or
// *net.UnixAddr).
func (c *Conn) LocalAddr() net.Addr {
	if !c.ok() {
		return nil
	}
	return c.fd.laddr
}

// RemoteAddr returns the peer's address (*net.TCPAddr, *net.UDPAddr or
// *net.UnixAddr).
func (c *Conn) RemoteAddr() net.Addr {
	if !c.ok() {
		return nil
	}
	return c.fd.raddr
}

// SetDeadline sets the read and write deadlines, as net.Conn says: a
// waiting Read or Write sees the new deadline at once; an expired one
// fails them with an error for which errors.Is(err, os.ErrDeadlineExceeded)
// holds. The zero time clears it.
func (c *Conn) SetDeadline(t time.Time) error { return c.setDeadline(t, true, true) }

// SetReadDeadline sets the read deadline (see SetDeadline).
func (c *Conn) SetReadDeadline(t time.Time) error { return c.setDeadline(t, true, false) }

// SetWriteDeadline sets the write deadline (see SetDeadline).
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.setDeadline(t, false, true) }

func (c *Conn) setDeadline(t time.Time, r, w bool) error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := c.fd.setDeadline(t, r, w); err != nil {
		return c.fd.localOpError("set", err)
	}
	return nil
}

// SetNoDelay sets TCP_NODELAY (on by default for TCP, as in Go's net).
func (c *Conn) SetNoDelay(noDelay bool) error {
	return c.setOpt(func(fd *netFD) error { return fd.setNoDelay(noDelay) })
}

// SetKeepAlive turns TCP keep-alives on or off (SO_KEEPALIVE).
func (c *Conn) SetKeepAlive(keepalive bool) error {
	return c.setOpt(func(fd *netFD) error { return fd.setKeepAlive(keepalive) })
}

// SetKeepAlivePeriod sets the idle time before the first keep-alive probe
// and the interval between probes, rounded up to a second; as net's, 0
// means its default (15 s) and a negative d changes nothing. Where the
// system has no per-socket setting (OpenBSD) it returns an error.
func (c *Conn) SetKeepAlivePeriod(d time.Duration) error {
	return c.setOpt(func(fd *netFD) error { return fd.setKeepAlivePeriod(d) })
}

// SetReadBuffer sets the size of the kernel's receive buffer (SO_RCVBUF).
func (c *Conn) SetReadBuffer(bytes int) error { return c.setBuffer(true, bytes) }

// SetWriteBuffer sets the size of the kernel's send buffer (SO_SNDBUF).
func (c *Conn) SetWriteBuffer(bytes int) error { return c.setBuffer(false, bytes) }

func (c *Conn) setBuffer(read bool, bytes int) error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := c.fd.setBuffer(read, bytes); err != nil {
		return c.fd.localOpError("set", err)
	}
	return nil
}

func (c *Conn) setOpt(set func(fd *netFD) error) error {
	if !c.ok() {
		return syscall.EINVAL
	}
	if err := set(c.fd); err != nil {
		return c.fd.opError("set", err)
	}
	return nil
}

// SyscallConn returns a raw connection: its Read and Write wait on the
// loop as the Conn's do.
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	if !c.ok() {
		return nil, syscall.EINVAL
	}
	return &rawConn{fd: c.fd}, nil
}

// File returns a duplicate of the socket as an *os.File (close-on-exec);
// closing one does not close the other. Windows refuses it (see the
// package doc).
func (c *Conn) File() (*os.File, error) {
	if !c.ok() {
		return nil, syscall.EINVAL
	}
	f, err := c.fd.dup()
	if err != nil {
		return nil, c.fd.opError("file", err)
	}
	return f, nil
}

// Listener is a listening stream socket on a loop. It implements
// net.Listener, so it can be given to http.Serve; Accept waits as the
// package doc says.
type Listener struct {
	fd        *netFD
	keepAlive time.Duration
}

var _ net.Listener = (*Listener)(nil)

func (ln *Listener) ok() bool { return ln != nil && ln.fd != nil }

// Accept waits for the next connection and returns it as a net.Conn (a
// *Conn).
func (ln *Listener) Accept() (net.Conn, error) {
	c, err := ln.AcceptConn()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// AcceptConn waits for the next connection. Out of descriptors (EMFILE,
// ENFILE) or kernel memory, it returns the error (a temporary net.Error,
// which net/http's Serve retries) and keeps listening; the next accept(2)
// waits for a back-off that starts at 5 ms and doubles up to 1 s, so a
// caller that retries at once does not spin the loop.
func (ln *Listener) AcceptConn() (*Conn, error) {
	if !ln.ok() {
		return nil, syscall.EINVAL
	}
	fd, err := ln.fd.accept(ln.keepAlive)
	if err != nil {
		return nil, ln.fd.opError("accept", err)
	}
	return &Conn{fd: fd}, nil
}

// Close stops listening: a waiting Accept returns an error wrapping
// net.ErrClosed. The socket file of a "unix" listener is removed.
func (ln *Listener) Close() error {
	if !ln.ok() {
		return syscall.EINVAL
	}
	if err := ln.fd.close(); err != nil {
		return ln.fd.opError("close", err)
	}
	return nil
}

// Addr returns the address it listens on.
func (ln *Listener) Addr() net.Addr {
	if !ln.ok() {
		return nil
	}
	return ln.fd.laddr
}

// SetDeadline sets the deadline of Accept, as net.TCPListener's.
func (ln *Listener) SetDeadline(t time.Time) error {
	if !ln.ok() {
		return syscall.EINVAL
	}
	if err := ln.fd.setDeadline(t, true, false); err != nil {
		return ln.fd.opError("set", err)
	}
	return nil
}

// SyscallConn returns a raw connection to the listening socket.
func (ln *Listener) SyscallConn() (syscall.RawConn, error) {
	if !ln.ok() {
		return nil, syscall.EINVAL
	}
	return &rawConn{fd: ln.fd}, nil
}

// File returns a duplicate of the listening socket as an *os.File.
func (ln *Listener) File() (*os.File, error) {
	if !ln.ok() {
		return nil, syscall.EINVAL
	}
	f, err := ln.fd.dup()
	if err != nil {
		return nil, ln.fd.opError("file", err)
	}
	return f, nil
}

// rawConn is the syscall.RawConn of a Conn or Listener.
type rawConn struct{ fd *netFD }

func (c *rawConn) Control(f func(fd uintptr)) error {
	if err := c.fd.rawControl(f); err != nil {
		return c.fd.localOpError("raw-control", err)
	}
	return nil
}

// Read calls f until it returns true, waiting for readability between
// calls as Conn.Read waits.
func (c *rawConn) Read(f func(fd uintptr) (done bool)) error {
	if err := c.fd.rawWait(false, f); err != nil {
		return c.fd.opError("raw-read", err)
	}
	return nil
}

// Write calls f until it returns true, waiting for writability between
// calls.
func (c *rawConn) Write(f func(fd uintptr) (done bool)) error {
	if err := c.fd.rawWait(true, f); err != nil {
		return c.fd.opError("raw-write", err)
	}
	return nil
}
