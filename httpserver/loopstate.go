package httpserver

import (
	"bufio"
	"crypto/tls"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// newConnGrace is how long Shutdown leaves a connection that has sent
// nothing yet, as net/http's closeIdleConns does (StateNew for 5 s).
const newConnGrace = 5 * time.Second

// loopState is what a Server keeps per loop. Only that loop's fibers touch
// it, so nothing in it is locked: the buffers are free lists rather than
// sync.Pools, and the scratch buffer is shared by every connection of the
// loop, since only one fiber runs at a time.
type loopState struct {
	srv *Server
	l   *core.Loop

	listeners []*socket.Listener
	accepting int
	conns     conn // sentinel of the list of conns not hijacked nor ended
	nconns    int
	closing   bool          // Shutdown or Close has run on this loop
	drained   chan struct{} // closed once closing and nothing is left
	isDrained bool

	// An idle connection reads the first bytes of its next request here,
	// and takes a read buffer only then: 10 000 idle connections hold no
	// buffer.
	scratch [bufSize]byte
	readers freeList[*bufio.Reader]
	writers freeList[*bufio.Writer]
	bodies  freeList[[]byte] // response bodies held back until commit

	// Kept from one response to the next: responses repeat themselves.
	sniffs sniffCache
	dates  dateCache
}

func newLoopState(s *Server, l *core.Loop) *loopState {
	ls := &loopState{srv: s, l: l, drained: make(chan struct{})}
	ls.conns.prev, ls.conns.next = &ls.conns, &ls.conns
	return ls
}

// serve is the accept loop, in a fiber of the loop.
func (ls *loopState) serve(ln *socket.Listener, config *tls.Config) error {
	if ls.closing {
		ln.Close()
		return http.ErrServerClosed
	}
	ls.listeners = append(ls.listeners, ln)
	ls.accepting++
	defer func() {
		ls.accepting--
		if i := slices.Index(ls.listeners, ln); i >= 0 {
			ls.listeners = slices.Delete(ls.listeners, i, i+1)
		}
		ls.checkDrained()
	}()
	for {
		c, err := ln.AcceptConn()
		if err != nil {
			if ls.closing || ls.srv.inShutdown.Load() {
				return http.ErrServerClosed
			}
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				// Out of descriptors: the listener holds its next accept
				// back by itself.
				continue
			}
			return err
		}
		ls.start(c, config)
	}
}

// start serves c in a fiber of its own.
func (ls *loopState) start(rwc *socket.Conn, config *tls.Config) {
	c := &conn{srv: ls.srv, ls: ls, raw: rwc}
	c.init(config)
	ls.add(c)
	c.setState(http.StateNew)
	ls.l.Defer(func(core.CallbackID) { c.serve() })
}

func (ls *loopState) add(c *conn) {
	c.prev, c.next = ls.conns.prev, &ls.conns
	c.prev.next, c.next.prev = c, c
	ls.nconns++
}

// remove takes c off the list (hijacked or ended).
func (ls *loopState) remove(c *conn) {
	if c.next == nil {
		return
	}
	c.prev.next, c.next.prev = c.next, c.prev
	c.prev, c.next = nil, nil
	ls.nconns--
	ls.checkDrained()
}

func (ls *loopState) checkDrained() {
	if ls.closing && !ls.isDrained && ls.nconns == 0 && ls.accepting == 0 {
		ls.isDrained = true
		close(ls.drained)
	}
}

// eachConn calls f on every conn open when it is called. f may remove
// conns from the list, its own and others: a Close it makes suspends its
// fiber until the conn's other users have left, and they may end
// meanwhile.
func (ls *loopState) eachConn(f func(c *conn)) {
	var cs []*conn
	for c := ls.conns.next; c != &ls.conns; c = c.next {
		cs = append(cs, c)
	}
	for _, c := range cs {
		f(c)
	}
}

// shutdown is Shutdown's step on this loop: stop accepting, close the
// idle conns, give the silent new ones newConnGrace; the others close
// after their response (keepAlives is off from now on).
func (ls *loopState) shutdown() {
	ls.closing = true
	ls.closeListeners()
	ls.eachConn(func(c *conn) {
		switch c.state {
		case http.StateIdle:
			c.rwc.Close()
		case http.StateNew:
			c.shutdownGrace()
		}
	})
	ls.checkDrained()
}

// closeAll is Close's step on this loop.
func (ls *loopState) closeAll() {
	ls.closing = true
	ls.closeListeners()
	ls.eachConn(func(c *conn) {
		if c.cur != nil {
			c.cur.ctx.cancel()
		}
		c.rwc.Close()
	})
	ls.checkDrained()
}

func (ls *loopState) closeListeners() {
	// A copy: Close suspends, and Serve's accept fibers take their
	// listeners off the list meanwhile.
	for _, ln := range slices.Clone(ls.listeners) {
		ln.Close()
	}
}
