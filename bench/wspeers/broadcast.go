package main

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	gorilla "github.com/gorilla/websocket"
	nbws "github.com/lesismal/nbio/nbhttp/websocket"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/websocket"
)

// broadcastSize is the size of a broadcast message.
const broadcastSize = 64

// broadcastFunc sends msg to every conn of the server's set, the way its
// library broadcasts, and returns how many conns took it and the time
// from the broadcast's start until every frame was handed to the kernel
// (as far as the library shows it: wsbench's package doc says how far).
type broadcastFunc func(msg []byte) (sent int, took time.Duration, err error)

// broadcaster is set once, with -broadcast, before the server serves; the
// signal goroutine reads it.
var broadcaster atomic.Pointer[struct {
	send  broadcastFunc
	conns func() int
}]

// setBroadcast makes send the server's broadcast, over the conns of set.
func setBroadcast[C comparable](send broadcastFunc, set *connSet[C]) {
	broadcaster.Store(&struct {
		send  broadcastFunc
		conns func() int
	}{send, set.len})
}

// rounds counts the broadcasts; only the signal goroutine touches it.
var rounds uint64

// broadcastNext answers SIGHUP: it broadcasts the next message and says
// "broadcast CONNS NANOSECONDS", or "broadcast-error WHY".
func broadcastNext() {
	f := broadcaster.Load()
	if f == nil {
		say("broadcast-error the server runs without -broadcast")
		return
	}
	rounds++
	msg := make([]byte, broadcastSize)
	binary.LittleEndian.PutUint64(msg, rounds)
	for i := 8; i < len(msg); i++ {
		msg[i] = byte(i)
	}
	n, took, err := f.send(msg)
	if err != nil {
		say("broadcast-error %v", err)
		return
	}
	say("broadcast %d %d", n, took.Nanoseconds())
}

// countConns answers SIGWINCH: "conns N", the conns in the broadcast's
// set, for wsbench to wait until all its conns are there.
func countConns() {
	f := broadcaster.Load()
	if f == nil {
		say("broadcast-error the server runs without -broadcast")
		return
	}
	say("conns %d", f.conns())
}

// connSet is a server's conns, by the loop they are on (nil for the
// servers that have no loop of ours).
type connSet[C comparable] struct {
	mu sync.Mutex
	by map[*core.Loop]map[C]struct{}
}

func (s *connSet[C]) add(l *core.Loop, c C) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[*core.Loop]map[C]struct{}{}
	}
	if s.by[l] == nil {
		s.by[l] = map[C]struct{}{}
	}
	s.by[l][c] = struct{}{}
}

func (s *connSet[C]) remove(l *core.Loop, c C) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.by[l], c)
}

func (s *connSet[C]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, cs := range s.by {
		n += len(cs)
	}
	return n
}

// snapshot is the conns, by loop, as lists: taken before a broadcast's
// clock starts, the same for every server.
func (s *connSet[C]) snapshot() map[*core.Loop][]C {
	s.mu.Lock()
	defer s.mu.Unlock()
	groups := map[*core.Loop][]C{}
	for l, cs := range s.by {
		for c := range cs {
			groups[l] = append(groups[l], c)
		}
	}
	return groups
}

// timed runs a broadcast that ends when send returns.
func timed[C any](conns []C, send func([]C) int) (int, time.Duration, error) {
	start := time.Now()
	n := send(conns)
	return n, time.Since(start), nil
}

// onEachLoop runs part on the loop of each group at once (posted), part
// calling done when its loop's share is handed to the kernel. The time is
// from the earliest part's start to the latest done: the post's wake-up
// is not in it.
func onEachLoop[C any](groups map[*core.Loop][]C, part func(l *core.Loop, conns []C, done func(sent int))) (int, time.Duration, error) {
	type result struct {
		start, end time.Time
		sent       int
	}
	results := make(chan result, len(groups))
	for l, conns := range groups {
		err := l.Post(func() {
			start := time.Now()
			part(l, conns, func(sent int) { results <- result{start, time.Now(), sent} })
		})
		if err != nil {
			return 0, 0, err
		}
	}
	var first, last time.Time
	sent := 0
	timeout := time.After(30 * time.Second)
	for i := range len(groups) {
		select {
		case r := <-results:
			if i == 0 || r.start.Before(first) {
				first = r.start
			}
			if r.end.After(last) {
				last = r.end
			}
			sent += r.sent
		case <-timeout:
			return 0, 0, fmt.Errorf("%d of %d loops did not finish the broadcast in 30 s", len(groups)-i, len(groups))
		}
	}
	return sent, last.Sub(first), nil
}

// gorillaBroadcast is the broadcast of the gorilla modes: one
// PreparedMessage, WritePreparedMessage on each conn in turn, which
// returns once the frame is written. On net/http one goroutine writes
// them all; on our loops each loop writes its own conns, in a callback
// (a write suspends it while a socket is full).
func gorillaBroadcast(onLoops bool) (joined func(*http.Request, *gorilla.Conn) func()) {
	set := &connSet[*gorilla.Conn]{}
	joined = func(r *http.Request, c *gorilla.Conn) func() {
		var l *core.Loop
		if onLoops {
			l = httpserver.LoopFromContext(r.Context())
		}
		set.add(l, c)
		return func() { set.remove(l, c) }
	}
	setBroadcast(func(msg []byte) (int, time.Duration, error) {
		send := func(conns []*gorilla.Conn) int {
			pm, err := gorilla.NewPreparedMessage(gorilla.BinaryMessage, msg)
			if err != nil {
				return 0
			}
			n := 0
			for _, c := range conns {
				if c.WritePreparedMessage(pm) == nil {
					n++
				}
			}
			return n
		}
		groups := set.snapshot()
		if !onLoops {
			return timed(groups[nil], send)
		}
		return onEachLoop(groups, func(_ *core.Loop, conns []*gorilla.Conn, done func(int)) { done(send(conns)) })
	}, set)
	return joined
}

// nbioBroadcast is nbio's: WriteMessage on each conn in turn, from one
// goroutine. nbio has no prepared message; each call frames the message
// and writes it at once, keeping what the socket does not take for its
// poller to write later.
func nbioBroadcast() (joined, left func(*nbws.Conn)) {
	set := &connSet[*nbws.Conn]{}
	joined = func(c *nbws.Conn) { set.add(nil, c) }
	left = func(c *nbws.Conn) { set.remove(nil, c) }
	setBroadcast(func(msg []byte) (int, time.Duration, error) {
		return timed(set.snapshot()[nil], func(conns []*nbws.Conn) int {
			n := 0
			for _, c := range conns {
				if c.WriteMessage(nbws.BinaryMessage, msg) == nil {
					n++
				}
			}
			return n
		})
	}, set)
	return joined, left
}

// oursBroadcast is the project's: websocket.Broadcast over each loop's
// conns, on that loop. Broadcast queues the frame (encoded once) on every
// conn and each conn's flush is a microtask behind it; the part is done
// when a microtask queued after those flushes runs and no flush waits on
// a full socket (a flush that does holds a fiber: the loop's live fibers
// are back where they were once all are written).
func oursBroadcast() (joined func(*websocket.Conn, *http.Request), left func(*websocket.Conn)) {
	set := &connSet[*websocket.Conn]{}
	joined = func(c *websocket.Conn, _ *http.Request) { set.add(c.Loop(), c) }
	left = func(c *websocket.Conn) { set.remove(c.Loop(), c) }
	setBroadcast(func(msg []byte) (int, time.Duration, error) {
		return onEachLoop(set.snapshot(), func(l *core.Loop, conns []*websocket.Conn, done func(int)) {
			if !l.InFiber() {
				// Broadcast would post the flushes instead of queueing
				// them, and the microtask below would run before them.
				panic("wspeers: a posted func runs outside the loop's fibers")
			}
			live := l.Stats().FibersLive
			n := websocket.Broadcast(conns, websocket.Binary, msg)
			var flushed func()
			flushed = func() {
				if l.Stats().FibersLive > live {
					l.Defer(func(core.CallbackID) { flushed() })
					return
				}
				done(n)
			}
			l.Queue(flushed)
		})
	}, set)
	return joined, left
}
