package websocket

import (
	"compress/flate"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// MessageType is a data message's type: its opcode (RFC 6455 5.6).
type MessageType int

const (
	Text   MessageType = 1
	Binary MessageType = 2
)

func (t MessageType) String() string {
	switch t {
	case Text:
		return "text"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("MessageType(%d)", int(t))
}

// Defaults of Options.
const (
	DefaultMaxMessageSize = 1 << 20
	DefaultMaxQueuedBytes = 4 << 20
	DefaultCloseTimeout   = 5 * time.Second
)

// Options are what a conn does with its messages, and its limits: a
// Server's and a Dialer's alike. The zero value works; the callbacks
// may be nil.
type Options struct {
	// OnMessage gets each data message, whole, in order, in a fiber of
	// the conn's loop: it may suspend (a timer, an httpclient call, a
	// send), and the conn's next message waits until it returns. p is
	// valid until it returns; copy what must outlive it. A text message
	// is valid UTF-8.
	OnMessage func(c *Conn, typ MessageType, p []byte)
	// OnClose is called once, on the loop, when the conn has ended, with
	// how: the close frame that ended it (see CloseError).
	OnClose func(c *Conn, err *CloseError)

	// MaxMessageSize bounds a message, after inflating if it was
	// compressed (0: DefaultMaxMessageSize); MaxFrameSize a frame (0: the
	// message's limit). Past either, the conn closes with CloseTooBig.
	MaxMessageSize int
	MaxFrameSize   int
	// MaxQueuedBytes bounds the frames that wait to be written on a conn
	// (0: DefaultMaxQueuedBytes). A send that would pass it is refused
	// with ErrQueueFull and the conn closes with ClosePolicyViolation: a
	// peer that does not read costs at most this, and never holds up the
	// sender or the loop.
	MaxQueuedBytes int
	// PingInterval, if set, pings a conn from which nothing came for that
	// long, and closes it (CloseAbnormal) if nothing comes for as long
	// again.
	PingInterval time.Duration
	// CloseTimeout bounds the wait for the peer's close frame, or for our
	// close frame to be written (0: DefaultCloseTimeout); then the TCP
	// conn is closed.
	CloseTimeout time.Duration

	// Compression negotiates permessage-deflate (RFC 7692) when the peer
	// offers it (a server) or offers it (a client). CompressionLevel is
	// compress/flate's (0: flate.BestSpeed). ContextTakeover keeps each
	// side's window from message to message, which compresses small
	// similar messages better, and costs each conn its own compressor
	// (about 600 KiB) and a 32 KiB window for its whole life; without it
	// an idle conn holds nothing of compression (see the package doc).
	Compression      bool
	CompressionLevel int
	ContextTakeover  bool
}

func (o *Options) maxMessage() int {
	if o.MaxMessageSize > 0 {
		return o.MaxMessageSize
	}
	return DefaultMaxMessageSize
}

func (o *Options) maxFrame() int {
	if o.MaxFrameSize > 0 {
		return o.MaxFrameSize
	}
	return o.maxMessage()
}

func (o *Options) maxQueued() int {
	if o.MaxQueuedBytes > 0 {
		return o.MaxQueuedBytes
	}
	return DefaultMaxQueuedBytes
}

func (o *Options) closeTimeout() time.Duration {
	if o.CloseTimeout > 0 {
		return o.CloseTimeout
	}
	return DefaultCloseTimeout
}

func (o *Options) level() int {
	switch l := o.CompressionLevel; {
	case l == 0:
		return flate.BestSpeed
	case l < flate.HuffmanOnly || l > flate.BestCompression:
		panic(fmt.Sprintf("websocket: CompressionLevel %d is not one of compress/flate's (%d to %d)", l, flate.HuffmanOnly, flate.BestCompression))
	default:
		return l
	}
}

var (
	// ErrClosed is what a send returns once the conn is closing or closed.
	ErrClosed = errors.New("websocket: send on a closed conn")
	// ErrQueueFull is what a send returns that would pass
	// Options.MaxQueuedBytes; the conn then closes with
	// ClosePolicyViolation.
	ErrQueueFull = errors.New("websocket: the conn's write queue is full (Options.MaxQueuedBytes); the conn closes with 1008")
)

// Conn is a WebSocket conn on a loop, a server's or a client's. Its
// messages go to Options.OnMessage; its sends (WriteMessage, Ping, Close,
// WritePrepared, NextWriter's writer) may be called from any fiber or
// goroutine and never wait: they queue the frame, and the loop writes it.
type Conn struct {
	// Data is the user's: anything a conn should carry (a user's name, a
	// room). The package never touches it.
	Data any

	l           *core.Loop
	nc          net.Conn
	opts        *Options
	srv         *Server // while the conn waits for its handshake (Server.Serve)
	subprotocol string
	tk          *takeover // with context takeover on either side
	pmd         deflateParams
	client      bool

	// The read side: the loop's.
	msgOp      opcode // the fragmented message under way, 0 if none
	msgDeflate bool
	ending     bool // a close frame came or went, or the conn failed: input is ignored
	active     bool // bytes came since the last ping tick
	pinged     bool
	ended      bool
	msg        []byte // its payload so far; nil between messages
	utf8Done   int    // how much of msg is checked as UTF-8
	carry      []byte // bytes read before the conn was served
	ticker     core.CallbackID
	closeTimer core.CallbackID

	// The write side: any goroutine's, under mu.
	mu       sync.Mutex
	flushing bool           // a flush is scheduled or runs
	closing  bool           // a close frame is queued: nothing else will be
	shutdown bool           // close the TCP conn once out is written
	out      *pending       // frames to write, nil if none
	writer   *messageWriter // the open message writer (NextWriter)
	held     [][]byte       // frames that wait for it to close
	queued   int            // their bytes, and those being written
	pongAt   int            // 1 + the offset in out of a pong not taken yet
	closeErr *CloseError
	flushFn  func()
}

// takeover is what context takeover keeps for a conn's whole life: the
// peer's window (the last 32 KiB inflated) and our compressor, which
// mu guards.
type takeover struct {
	hist []byte
	defl deflater
}

func newConn(l *core.Loop, nc net.Conn, opts *Options, client bool) *Conn {
	c := &Conn{l: l, nc: nc, opts: opts, client: client}
	c.flushFn = c.flush
	return c
}

// Subprotocol is the subprotocol the handshake agreed on, or "".
func (c *Conn) Subprotocol() string { return c.subprotocol }

// setDeflate sets what permessage-deflate was negotiated to.
func (c *Conn) setDeflate(p deflateParams) {
	c.pmd = p
	if p.inTakeover || p.outTakeover {
		c.tk = &takeover{defl: deflater{level: c.opts.level()}}
	}
}

// Compressed reports whether permessage-deflate was negotiated.
func (c *Conn) Compressed() bool { return c.pmd.on }

// Loop is the loop the conn is on.
func (c *Conn) Loop() *core.Loop { return c.l }

// NetConn is the conn's transport; reading or writing it corrupts the
// stream.
func (c *Conn) NetConn() net.Conn { return c.nc }

func (c *Conn) LocalAddr() net.Addr  { return c.nc.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// onLoop runs fn on the conn's loop: at once from one of its fibers, else
// posted.
func (c *Conn) onLoop(fn func()) {
	if c.l.InFiber() {
		fn()
		return
	}
	c.l.Post(fn) // fails once the loop is closed, when the conn is gone too
}

// start serves the conn once its handshake is done: OnOpen (open) in a
// fiber of the loop, the bytes read with the handshake, then the conn's
// bytes as they come. A *socket.Conn waits without a fiber (Conn.Serve);
// any other transport (TLS) is read by a fiber of its own.
func (c *Conn) start(open func()) {
	run := func() {
		done := false
		defer c.unlessDone(&done)
		c.begin(open)
		if c.carry != nil {
			carry := c.carry
			c.carry = nil
			if n := c.process(carry); n < len(carry) {
				c.carry = carry[n:]
			}
		}
		// A conn handed over by a Handler of a served conn (httpserver's)
		// is served again once that Handler has returned; should it still
		// run (a handler that suspends after the Hijack), the conn gets a
		// fiber that reads it instead.
		if sc, ok := c.nc.(*socket.Conn); ok && sc.Serve(c.serveBytes) == nil {
			done = true
			return
		}
		c.readLoop()
		done = true
	}
	if c.l.InFiber() {
		c.l.Queue(run)
	} else if c.l.Post(run) != nil {
		c.nc.Close()
	}
}

// begin opens the conn, on the loop: its ping timer, then OnOpen.
func (c *Conn) begin(open func()) {
	if c.opts.PingInterval > 0 {
		c.ticker = c.l.Repeat(c.opts.PingInterval, c.tick)
		c.l.Unreference(c.ticker)
	}
	if open != nil {
		open()
	}
}

// readLoop reads the conn in a fiber until it ends: the way of a
// transport that cannot be served.
func (c *Conn) readLoop() {
	buf := make([]byte, 0, 4096)
	if c.carry != nil {
		buf = append(buf, c.carry...)
		c.carry = nil
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := c.nc.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			c.nc.Close()
			c.finish(err)
			return
		}
		used := c.process(buf)
		rest := buf[used:]
		if cap(buf) > 64<<10 && len(rest) < 4096 {
			// A large message is done: an idle conn goes back to a small
			// buffer.
			buf = make([]byte, len(rest), 4096)
		}
		buf = buf[:copy(buf, rest)]
	}
}

// serveBytes is the conn's socket.Handler.
func (c *Conn) serveBytes(_ *socket.Conn, in []byte, err error) (n int) {
	if err != nil {
		c.finish(err)
		return 0
	}
	done := false
	defer c.unlessDone(&done)
	switch {
	case c.srv != nil:
		n = c.srv.handshake(c, in)
	case c.carry != nil:
		// Left by the handshake: rare, and copied once more.
		buf := append(c.carry, in...)
		c.carry = nil
		if n := c.process(buf); n < len(buf) {
			c.carry = buf[n:]
		}
		n = len(in)
	default:
		n = c.process(in)
	}
	done = true
	return n
}

// unlessDone ends the conn if a callback of the user's (OnOpen,
// OnMessage) panicked through the package before *done was set: the
// conn is closed and OnClose told (CloseAbnormal), and the panic goes on
// to the loop, as a socket.Handler's does.
func (c *Conn) unlessDone(done *bool) {
	if *done || c.ended {
		return
	}
	c.setCloseErr(&CloseError{Code: CloseAbnormal, Reason: "a callback panicked"})
	c.nc.Close()
	c.finish(nil)
}

// finish ends the conn once its transport has: on the loop, once.
func (c *Conn) finish(err error) {
	if c.ended {
		return
	}
	c.ended = true
	c.ending = true
	if c.srv != nil {
		return // it ended in its handshake: it was never opened
	}
	if c.ticker != 0 {
		c.l.Cancel(c.ticker)
	}
	if c.closeTimer != 0 {
		c.l.Cancel(c.closeTimer)
	}
	c.mu.Lock()
	c.closing = true
	c.dropOut()
	c.queued, c.tk = 0, nil
	c.writer, c.held = nil, nil
	ce := c.closeErr
	if ce == nil {
		ce = &CloseError{Code: CloseAbnormal, Err: err}
		c.closeErr = ce
	}
	c.mu.Unlock()
	c.msg, c.carry = nil, nil
	if c.opts.OnClose != nil {
		c.opts.OnClose(c, ce)
	}
}

// tick is the ping timer's (Options.PingInterval).
func (c *Conn) tick(core.CallbackID) {
	switch {
	case c.active:
		c.active, c.pinged = false, false
	case !c.pinged:
		c.pinged = true
		c.control(opPing, nil)
	default:
		c.setCloseErr(&CloseError{Code: CloseAbnormal, Reason: fmt.Sprintf("nothing came for %v after a ping", c.opts.PingInterval)})
		c.nc.Close()
	}
}

func (c *Conn) setCloseErr(e *CloseError) {
	c.mu.Lock()
	if c.closeErr == nil {
		c.closeErr = e
	}
	c.mu.Unlock()
}
