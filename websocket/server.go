package websocket

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// Server accepts WebSocket conns: as an http.Handler on a route of
// package httpserver's Server (ServeHTTP), or on a socket.Listener of its
// own (Serve). Its fields are read, never written, once it serves.
type Server struct {
	Options
	// OnOpen is called once per conn, in a fiber of its loop, after the
	// handshake and before its first message: r is the handshake's
	// request, valid until it returns. It may suspend; it may send.
	OnOpen func(c *Conn, r *http.Request)
	// CheckOrigin accepts or refuses a handshake by its request (403).
	// nil accepts requests without Origin (not from a browser) and those
	// whose Origin's host is the request's Host, as gorilla and coder do.
	CheckOrigin func(r *http.Request) bool
	// Subprotocols are those the server speaks, best first: the first
	// that the client offers is agreed on (Conn.Subprotocol).
	Subprotocols []string
	// HandshakeTimeout bounds, for Serve, the wait for a conn's handshake
	// from its accept; past it the conn is closed (0: no bound, as
	// net/http's ReadHeaderTimeout). On an httpserver route, the
	// httpserver.Server's timeouts apply.
	HandshakeTimeout time.Duration
}

// ServeHTTP upgrades the request to a WebSocket conn (a handshake that
// is not one is answered with the status RFC 6455 4.2.1 calls for: 400,
// 403, 405, or 426 with Sec-WebSocket-Version: 13). The request must be
// served by package httpserver, whose loop the conn stays on; without TLS
// it then waits without a fiber, as a served socket conn. It returns once
// the conn is open: its messages go to OnMessage.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l := httpserver.LoopFromContext(r.Context())
	if l == nil {
		http.Error(w, "websocket: the request is not served by package httpserver, whose loop a conn needs", http.StatusInternalServerError)
		return
	}
	if status, msg := s.checkRequest(r); status != 0 {
		if status == http.StatusUpgradeRequired {
			w.Header().Set("Sec-WebSocket-Version", "13")
		}
		http.Error(w, msg, status)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "websocket: the ResponseWriter cannot be hijacked", http.StatusInternalServerError)
		return
	}
	resp, pmd, sub := s.answer(r)
	nc, brw, err := hj.Hijack()
	if err != nil {
		return // the server answered already, or logged
	}
	c := newConn(l, nc, &s.Options, false)
	c.setDeflate(pmd)
	c.subprotocol = sub
	if n := brw.Reader.Buffered(); n > 0 {
		// The client's first frames, read with its request.
		p, _ := brw.Reader.Peek(n)
		c.carry = bytes.Clone(p)
	}
	if _, err := nc.Write(resp); err != nil {
		nc.Close()
		return
	}
	var open func()
	if s.OnOpen != nil {
		open = func() { s.OnOpen(c, r) }
	}
	c.start(open)
}

// Serve accepts conns on ln, reads their handshakes, upgrades them, and
// serves them on l, ln's loop, until Accept fails, and returns that error
// (one wrapping net.ErrClosed once ln is closed), as net/http's Serve
// does. A conn holds no fiber while it waits for its handshake or for
// its next frame. From a fiber it suspends that fiber while it waits for
// conns.
func (s *Server) Serve(l *core.Loop, ln *socket.Listener) error {
	for {
		sc, err := ln.AcceptConn()
		if err != nil {
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				continue
			}
			return err
		}
		c := newConn(l, sc, &s.Options, false)
		c.srv = s
		if s.HandshakeTimeout > 0 {
			sc.SetReadDeadline(time.Now().Add(s.HandshakeTimeout))
		}
		if err := sc.Serve(c.serveBytes); err != nil {
			sc.Close()
		}
	}
}

// maxHandshake bounds the request Serve reads before it answers 431.
const maxHandshake = 8 << 10

// handshake reads a handshake that came to Serve, answers it, and reads
// the frames that came behind it; it returns what it consumed (0 until
// the request's header is whole).
func (s *Server) handshake(c *Conn, in []byte) int {
	end := bytes.Index(in, []byte("\r\n\r\n"))
	if end < 0 {
		if len(in) > maxHandshake {
			s.reject(c, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("websocket: a handshake of over %d bytes", maxHandshake))
			return len(in)
		}
		return 0
	}
	end += 4
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(in[:end])))
	if err != nil {
		s.reject(c, http.StatusBadRequest, "websocket: the handshake is not an HTTP request: "+err.Error())
		return len(in)
	}
	if status, msg := s.checkRequest(r); status != 0 {
		s.reject(c, status, msg)
		return len(in)
	}
	resp, pmd, sub := s.answer(r)
	c.setDeflate(pmd)
	c.subprotocol, c.srv = sub, nil
	if s.HandshakeTimeout > 0 {
		c.nc.SetReadDeadline(time.Time{})
	}
	if _, err := c.nc.Write(resp); err != nil {
		c.ended = true // never opened: no OnClose
		c.nc.Close()
		return len(in)
	}
	var open func()
	if s.OnOpen != nil {
		open = func() { s.OnOpen(c, r) }
	}
	c.begin(open)
	return end + c.process(in[end:])
}

// reject answers a handshake that is not one, and closes the conn, which
// was never opened.
func (s *Server) reject(c *Conn, status int, msg string) {
	c.ended = true
	h := ""
	if status == http.StatusUpgradeRequired {
		h = "Sec-WebSocket-Version: 13\r\n"
	}
	fmt.Fprintf(c.nc, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n%sContent-Length: %d\r\n\r\n%s\n",
		status, http.StatusText(status), h, len(msg)+1, msg)
	c.nc.Close()
}
