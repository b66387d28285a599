//go:build unix || windows

package interop

import (
	"fmt"
	"log"
	"net/http"
	"slices"
	"sync"
	"time"

	gorilla "github.com/gorilla/websocket"
	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// A broadcast chat on one loop: httpserver serves the upgrade, gorilla's
// Upgrader makes the conn, and each member has a reader fiber (its
// handler's) and a writer fiber fed by an outbox, which the writer waits on
// with a core.Suspension: no fiber ever waits on a channel or a lock, so the
// loop serves everyone while any of them waits. The reader hands the pongs
// and the close reply to the writer, the conn's only writer. Three clients
// of gorilla's on goroutines of their own each say one thing and hear all
// three, then leave with the close handshake.
func Example_chat() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	room := newHub(l)
	srv := &httpserver.Server{Handler: room, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l, ln) }() // runs the loop until Close

	names := []string{"ann", "bob", "cyd"}
	clients := make([]*gorilla.Conn, len(names))
	for i, name := range names {
		c, _, err := gorilla.DefaultDialer.Dial("ws://"+ln.Addr().String()+"/?name="+name, nil)
		if err != nil {
			log.Fatal(err)
		}
		_, welcome, err := c.ReadMessage() // in the room from here on
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(welcome))
		clients[i] = c
	}

	heard := make([][]string, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			if err := c.WriteMessage(gorilla.TextMessage, []byte("hi")); err != nil {
				log.Fatal(err)
			}
			for range clients {
				_, p, err := c.ReadMessage()
				if err != nil {
					log.Fatal(err)
				}
				heard[i] = append(heard[i], string(p))
			}
			slices.Sort(heard[i]) // the order of the three depends on who spoke first
		})
	}
	wg.Wait()
	for i, name := range names {
		fmt.Printf("%s heard %q\n", name, heard[i])
	}

	for i, c := range clients {
		bye := gorilla.FormatCloseMessage(gorilla.CloseNormalClosure, "bye")
		if err := c.WriteControl(gorilla.CloseMessage, bye, time.Now().Add(5*time.Second)); err != nil {
			log.Fatal(err)
		}
		_, _, err := c.ReadMessage() // the server's close reply
		fmt.Printf("%s: %v\n", names[i], err)
		c.Close()
	}
	<-room.empty
	srv.Close()
	fmt.Println("Serve:", <-served)
	// Output:
	// welcome, ann
	// welcome, bob
	// welcome, cyd
	// ann heard ["ann: hi" "bob: hi" "cyd: hi"]
	// bob heard ["ann: hi" "bob: hi" "cyd: hi"]
	// cyd heard ["ann: hi" "bob: hi" "cyd: hi"]
	// ann: websocket: close 1000 (normal)
	// bob: websocket: close 1000 (normal)
	// cyd: websocket: close 1000 (normal)
	// Serve: http: Server closed
}

// hub is the chat room: its members. Only fibers of its loop touch it,
// and they take turns, so it needs no lock.
type hub struct {
	l       *core.Loop
	members map[*member]bool
	empty   chan struct{} // closed when the last member has left
}

type member struct {
	name string
	out  *outbox
}

func newHub(l *core.Loop) *hub {
	return &hub{l: l, members: map[*member]bool{}, empty: make(chan struct{})}
}

// ServeHTTP is a member's handler, in its conn's fiber, which is the
// member's reader.
func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	m := &member{name: r.URL.Query().Get("name"), out: newOutbox(h.l)}
	// gorilla's default handlers would write the pong and the close reply
	// from this fiber, waiting on its write lock (a channel) for up to a
	// second, holding the loop, whenever the writer is suspended mid-write:
	// hand them to the writer instead.
	c.SetPingHandler(func(p string) error { m.out.push(gorilla.PongMessage, []byte(p)); return nil })
	c.SetCloseHandler(func(code int, _ string) error {
		m.out.push(gorilla.CloseMessage, gorilla.FormatCloseMessage(code, ""))
		return nil
	})
	writer := startFiber(h.l, func() { writeLoop(c, m.out) })
	h.members[m] = true
	m.out.push(gorilla.TextMessage, []byte("welcome, "+m.name))
	for {
		_, p, err := c.ReadMessage() // suspends this fiber; the loop serves the others
		if err != nil {
			break // the close (its reply is queued), or the conn failed
		}
		for o := range h.members {
			o.out.push(gorilla.TextMessage, []byte(m.name+": "+string(p)))
		}
	}
	delete(h.members, m)
	m.out.close()
	writer.wait() // until what was queued (the close reply among it) is sent
	c.Close()
	if len(h.members) == 0 {
		close(h.empty) // a close never waits: a fiber may do it
	}
}

// outbox is a conn's queue of outgoing messages: any fiber of the loop
// pushes, the conn's one writer fiber pops, waiting on a core.Suspension
// while it is empty (a channel would stop the loop). A real server would
// bound it and drop a member that falls too far behind.
type outbox struct {
	l      *core.Loop
	queue  []outgoing
	closed bool
	waiter *core.Suspension // the writer, waiting for a push
}

type outgoing struct {
	typ  int // gorilla's message types, control ones included
	data []byte
}

func newOutbox(l *core.Loop) *outbox { return &outbox{l: l} }

// push queues a message; after close it is dropped.
func (o *outbox) push(typ int, data []byte) {
	if o.closed {
		return
	}
	o.queue = append(o.queue, outgoing{typ, data})
	o.wake()
}

// close lets the writer end once it has sent what is queued.
func (o *outbox) close() {
	o.closed = true
	o.wake()
}

func (o *outbox) wake() {
	if s := o.waiter; s != nil {
		o.waiter = nil
		s.Resume(nil)
	}
}

// pop returns the next message, suspending the calling fiber while there
// is none; false once the outbox is closed and empty (or the loop closes).
func (o *outbox) pop() (outgoing, bool) {
	for len(o.queue) == 0 {
		if o.closed {
			return outgoing{}, false
		}
		o.waiter = o.l.Suspension()
		if _, err := o.waiter.Suspend(); err != nil {
			return outgoing{}, false
		}
	}
	m := o.queue[0]
	o.queue[0] = outgoing{}
	o.queue = o.queue[1:]
	return m, true
}

// writeLoop is a conn's writer fiber: it sends what out holds, in order,
// until out is closed and empty or a write fails (then it drops the rest).
// It is the conn's only writer, so gorilla's write lock is always free
// when it asks for it, and WriteControl never waits on it.
func writeLoop(c *gorilla.Conn, out *outbox) {
	for {
		m, ok := out.pop()
		if !ok {
			return
		}
		var err error
		if m.typ == gorilla.TextMessage || m.typ == gorilla.BinaryMessage {
			err = c.WriteMessage(m.typ, m.data)
		} else {
			err = c.WriteControl(m.typ, m.data, time.Time{})
		}
		if err != nil || m.typ == gorilla.CloseMessage {
			out.closed, out.queue = true, nil
			return
		}
	}
}
