//go:build unix || windows

package socket

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// TLSConn is crypto/tls over a Conn of the loop, safe for fibers: any
// number of fibers and goroutines may call its methods at once (a reader
// and a writer, a Close from elsewhere), as with a Conn, and none of them
// ever blocks the loop's goroutine.
//
// A tls.Conn over a Conn is not: it holds its own mutexes across the
// Conn's Read and Write, so a fiber suspended there (waiting for the
// peer) while another fiber asks for the same mutex (a second Read, a
// Write during the handshake, a Close or an alert while a Write waits)
// would block the loop's goroutine, and with it the fiber that holds the
// mutex: a deadlock. TLSConn keeps crypto/tls away from every wait:
// after the handshake, crypto/tls reads from the socket only what is
// there (an empty socket is a temporary error, which it does not keep)
// and writes its records into a buffer; TLSConn waits for the socket, and
// sends the buffer, outside crypto/tls, under the locks of the Conn's two
// directions, which suspend a fiber and block a goroutine. The handshake
// is made by the first call that needs it, holding both locks, alone.
//
// Its errors are crypto/tls's and the Conn's: a *net.OpError for the
// socket's, net.ErrClosed after Close, os.ErrDeadlineExceeded past a
// deadline. Unlike a tls.Conn, a Write that timed out leaves the
// connection usable: what it had encrypted goes out with the next Write.
type TLSConn struct {
	c   *Conn
	tls *tls.Conn
	tr  tlsTransport

	handshaken atomic.Bool // the handshake was made (whatever its result)

	hsMu      sync.Mutex
	hsRunning bool               // a call is making the handshake
	hsWaiting []*core.Suspension // fibers waiting for it
	hsDone    chan struct{}      // closed when it is made, for goroutines
}

var _ net.Conn = (*TLSConn)(nil)

// TLSServer returns the server side of TLS over c, as tls.Server does;
// config must have a certificate (Certificates, GetCertificate or
// GetConfigForClient).
func TLSServer(c *Conn, config *tls.Config) *TLSConn {
	t := &TLSConn{c: c}
	t.tr.c = c
	t.tls = tls.Server(&t.tr, config)
	return t
}

// TLSClient returns the client side of TLS over c, as tls.Client does;
// config needs ServerName or InsecureSkipVerify.
func TLSClient(c *Conn, config *tls.Config) *TLSConn {
	t := &TLSConn{c: c}
	t.tr.c = c
	t.tls = tls.Client(&t.tr, config)
	return t
}

// NetConn returns the Conn under the TLS.
func (t *TLSConn) NetConn() *Conn { return t.c }

// Handshake runs the handshake if it has not run yet; Read and Write do
// it themselves.
func (t *TLSConn) Handshake() error { return t.HandshakeContext(context.Background()) }

// HandshakeContext is Handshake that ends, closing the connection, when
// ctx does.
func (t *TLSConn) HandshakeContext(ctx context.Context) error {
	if t.handshaken.Load() {
		return t.tls.HandshakeContext(ctx) // the result it keeps
	}
	if !t.c.ok() {
		return syscall.EINVAL
	}
	fd := t.c.fd
	l := fd.pd.Loop()
	// One call makes it; the others wait for its end, not for the
	// direction locks, which a Read holds for as long as it waits.
	if err := t.waitHandshake(); err != nil {
		return err
	}
	if t.handshaken.Load() {
		t.hsMu.Unlock()
		return t.tls.HandshakeContext(ctx)
	}
	t.hsRunning = true
	t.hsDone = make(chan struct{})
	t.hsMu.Unlock()
	err := t.handshake(ctx)
	t.hsMu.Lock()
	t.handshaken.Store(true)
	t.hsRunning = false
	waiting := t.hsWaiting
	t.hsWaiting = nil
	close(t.hsDone)
	t.hsMu.Unlock()
	for _, s := range waiting {
		if l.InFiber() {
			s.Resume(nil)
		} else {
			l.Post(func() { s.Resume(nil) })
		}
	}
	return err
}

// waitHandshake waits until no call is making the handshake, and
// returns holding hsMu.
func (t *TLSConn) waitHandshake() error {
	l := t.c.fd.pd.Loop()
	t.hsMu.Lock()
	for t.hsRunning {
		if l.InFiber() {
			s := l.Suspension()
			t.hsWaiting = append(t.hsWaiting, s)
			t.hsMu.Unlock()
			if _, err := s.Suspend(); err != nil {
				return err
			}
		} else {
			done := t.hsDone
			t.hsMu.Unlock()
			if err := l.RunUntil(done); err != nil {
				return err
			}
		}
		t.hsMu.Lock()
	}
	return nil
}

// handshake makes the handshake holding both direction locks: alone, so
// the socket's waits may be made inside crypto/tls.
func (t *TLSConn) handshake(ctx context.Context) error {
	fd := t.c.fd
	if err := fd.acquire(core.Read); err != nil {
		return fd.opError("read", err)
	}
	defer fd.unlock(core.Read)
	if err := fd.acquire(core.Write); err != nil {
		return fd.opError("write", err)
	}
	defer fd.unlock(core.Write)
	t.tr.wait = true
	defer func() { t.tr.wait = false }()
	return t.tls.HandshakeContext(ctx)
}

// ConnectionState is tls.Conn's; it waits for a handshake that another
// call is making.
func (t *TLSConn) ConnectionState() tls.ConnectionState {
	if !t.handshaken.Load() && t.c.ok() {
		// crypto/tls's ConnectionState takes the mutex that a handshake
		// holds throughout: wait for that one here.
		if t.waitHandshake() == nil {
			t.hsMu.Unlock()
		}
	}
	return t.tls.ConnectionState()
}

// Read reads decrypted bytes, as tls.Conn's Read.
func (t *TLSConn) Read(p []byte) (int, error) {
	if err := t.Handshake(); err != nil {
		return 0, err
	}
	fd := t.c.fd
	if err := fd.acquire(core.Read); err != nil {
		return 0, fd.opError("read", err)
	}
	// crypto/tls reads what the socket holds; the wait for more is made
	// here, outside its locks. Its own errors (and the socket's, which the
	// transport wrapped) come out as they are.
	n := 0
	var tlsErr error
	err := fd.retry(core.Read, "", func() error {
		n, tlsErr = t.tls.Read(p)
		if tlsErr != errWouldBlock {
			return nil
		}
		tlsErr = nil
		if n > 0 {
			// Bytes came with it (an alert's first bytes after the data,
			// which crypto/tls looked for): they are the Read's.
			return nil
		}
		return errAgain
	})
	fd.unlock(core.Read)
	if t.tr.pending() {
		// An alert or a key update that reading made: send it.
		t.send()
	}
	if err != nil {
		return n, fd.opError("read", err)
	}
	return n, tlsErr
}

// tlsChunk is what Write hands crypto/tls at once: it bounds the buffer
// of records not yet sent.
const tlsChunk = 64 << 10

// Write encrypts and sends p, as tls.Conn's Write; concurrent Writes do
// not interleave.
func (t *TLSConn) Write(p []byte) (int, error) {
	if err := t.Handshake(); err != nil {
		return 0, err
	}
	fd := t.c.fd
	if err := fd.acquire(core.Write); err != nil {
		return 0, fd.opError("write", err)
	}
	defer fd.unlock(core.Write)
	if fd.pd.Expired(core.Write) {
		return 0, fd.opError("write", os.ErrDeadlineExceeded)
	}
	nn := 0
	for {
		// First what an earlier Write or Read left.
		if err := t.flush(); err != nil {
			return nn, err
		}
		if nn == len(p) && len(p) > 0 {
			return nn, nil
		}
		chunk := p[nn:min(len(p), nn+tlsChunk)]
		n, err := t.tls.Write(chunk)
		if err != nil {
			return nn, err
		}
		nn += n
		if len(p) == 0 {
			return 0, t.flush()
		}
	}
}

// flush sends the records crypto/tls wrote; the caller holds the write
// lock.
func (t *TLSConn) flush() error {
	if !t.tr.pending() {
		return nil
	}
	fd := t.c.fd
	err := fd.retry(core.Write, callWrite, func() error {
		if err := t.tr.sendSome(); err != nil {
			return err
		}
		if t.tr.pending() {
			return errAgainNow
		}
		return nil
	})
	if err != nil {
		return fd.opError("write", err)
	}
	return nil
}

// send flushes under the write lock, for a Read that left records.
func (t *TLSConn) send() {
	fd := t.c.fd
	if fd.acquire(core.Write) != nil {
		return
	}
	t.flush()
	fd.unlock(core.Write)
}

// Close sends close_notify if it can at once and closes the connection:
// calls waiting on it return net.ErrClosed.
func (t *TLSConn) Close() error {
	if !t.c.ok() {
		return syscall.EINVAL
	}
	return t.tls.Close() // close_notify into the buffer; tlsTransport.Close
}

// CloseWrite sends close_notify: the peer reads the end of the stream.
// The connection stays open for reading.
func (t *TLSConn) CloseWrite() error {
	if err := t.tls.CloseWrite(); err != nil {
		return err
	}
	fd := t.c.fd
	if err := fd.acquire(core.Write); err != nil {
		return fd.opError("write", err)
	}
	defer fd.unlock(core.Write)
	// crypto/tls set the write deadline to now after the alert, so that
	// its Writes fail from then on: the alert itself gets what crypto/tls
	// gives it, 5 s.
	t.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return t.flush()
}

func (t *TLSConn) LocalAddr() net.Addr                { return t.c.LocalAddr() }
func (t *TLSConn) RemoteAddr() net.Addr               { return t.c.RemoteAddr() }
func (t *TLSConn) SetDeadline(d time.Time) error      { return t.c.SetDeadline(d) }
func (t *TLSConn) SetReadDeadline(d time.Time) error  { return t.c.SetReadDeadline(d) }
func (t *TLSConn) SetWriteDeadline(d time.Time) error { return t.c.SetWriteDeadline(d) }

// wouldBlock is what crypto/tls gets from a socket with nothing to read
// after the handshake: a temporary net.Error, which it passes up without
// making it the connection's error.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "socket: TLS read would block (internal)" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock error = wouldBlock{}

// tlsTransport is the net.Conn that crypto/tls reads and writes: the
// socket, without waits once the handshake is made, and a buffer for the
// records it writes.
type tlsTransport struct {
	c    *Conn
	wait bool // the handshake: wait inside (the caller holds both locks)

	mu  sync.Mutex // buf and off; never held across a wait
	buf []byte
	off int // buf[off:] is still to send
}

func (tr *tlsTransport) Read(p []byte) (int, error) {
	n, err := tr.c.fd.tlsRead(p, tr.wait)
	if err != nil && err != errWouldBlock {
		err = tr.c.fd.readError(err)
	}
	return n, err
}

func (tr *tlsTransport) Write(p []byte) (int, error) {
	if tr.wait {
		// The handshake: straight to the socket, waiting while it is full.
		n, err := tr.c.fd.writeLocked(p)
		if err != nil {
			err = tr.c.fd.opError("write", err)
		}
		return n, err
	}
	tr.mu.Lock()
	tr.buf = append(tr.buf, p...)
	tr.mu.Unlock()
	return len(p), nil
}

func (tr *tlsTransport) pending() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.off < len(tr.buf)
}

// sendSome makes one write(2) of what is pending: nil, or the errno of a
// call that sent nothing (errAgain: the socket is full).
func (tr *tlsTransport) sendSome() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n, err := tr.c.fd.tlsWrite(tr.buf[tr.off:])
	tr.off += n
	if tr.off == len(tr.buf) {
		tr.buf, tr.off = tr.buf[:0], 0
		if cap(tr.buf) > 2*tlsChunk {
			tr.buf = nil
		}
	}
	return err
}

// Close is crypto/tls's close of the socket, after close_notify went into
// the buffer: one try to send what is pending without waiting, then the
// socket's Close.
func (tr *tlsTransport) Close() error {
	if tr.pending() {
		tr.sendSome()
	}
	return tr.c.Close()
}

func (tr *tlsTransport) LocalAddr() net.Addr                { return tr.c.LocalAddr() }
func (tr *tlsTransport) RemoteAddr() net.Addr               { return tr.c.RemoteAddr() }
func (tr *tlsTransport) SetDeadline(d time.Time) error      { return tr.c.SetDeadline(d) }
func (tr *tlsTransport) SetReadDeadline(d time.Time) error  { return tr.c.SetReadDeadline(d) }
func (tr *tlsTransport) SetWriteDeadline(d time.Time) error { return tr.c.SetWriteDeadline(d) }
