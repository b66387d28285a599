//go:build unix || windows

package websocket_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
	"github.com/revoltgo/eventloop/websocket"
)

// An echo server on a route of package httpserver: every message comes
// back. Its conns hold no fiber while they wait; the handler runs in the
// fiber a message comes in. A client of the package, in a fiber of the
// same loop, says hello and closes.
func Example_echo() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &websocket.Server{Options: websocket.Options{
		OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
			c.WriteMessage(typ, p) // queued: it never waits
		},
	}}
	l.Defer(func(core.CallbackID) { httpserver.Serve(l, ln, srv) })

	l.Defer(func(core.CallbackID) {
		c, err := websocket.Dial(l, "ws://"+ln.Addr().String()+"/", &websocket.Options{
			OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
				fmt.Printf("%s: %s\n", typ, p)
				c.Close(websocket.CloseNormal, "bye")
			},
			OnClose: func(c *websocket.Conn, err *websocket.CloseError) {
				fmt.Println(err)
				ln.Close()
			},
		})
		if err != nil {
			log.Fatal(err)
		}
		c.WriteMessage(websocket.Text, []byte("hello"))
	})
	if err := l.Run(); err != nil { // until the listener and every conn are closed
		log.Fatal(err)
	}
	// Output:
	// text: hello
	// websocket: close 1000 sent: bye
}

// A client with permessage-deflate, on a goroutine that is not the
// loop's: Dial blocks that goroutine (a fiber would suspend) while the
// loop runs. The server, on a listener of its own (Server.Serve),
// upper-cases; the client's messages come to OnMessage on the loop.
func ExampleDialer_Dial() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &websocket.Server{Options: websocket.Options{
		Compression: true,
		OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
			c.WriteMessage(typ, bytesToUpper(p))
		},
	}}
	l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })

	client := func() {
		defer ln.Close()
		got := make(chan string, 1) // a send from OnMessage must not wait: it holds the loop
		d := &websocket.Dialer{Options: websocket.Options{
			Compression: true,
			OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
				got <- string(p) // p is valid until OnMessage returns
			},
		}}
		c, _, err := d.Dial(context.Background(), l, "ws://"+ln.Addr().String()+"/")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("compressed:", c.Compressed())
		c.WriteMessage(websocket.Text, []byte("shout"))
		fmt.Println(<-got)
		c.Close(websocket.CloseNormal, "")
	}
	done := make(chan struct{})
	// Started once the loop runs: a goroutine's call that finds nobody
	// running the loop runs it itself (package socket's doc), and Run
	// would then find it running.
	l.Defer(func(core.CallbackID) { go func() { client(); close(done) }() })
	if err := l.Run(); err != nil { // until the listener and the conn are closed
		log.Fatal(err)
	}
	<-done
	// Output:
	// compressed: true
	// SHOUT
}

func bytesToUpper(p []byte) []byte {
	q := make([]byte, len(p))
	for i, b := range p {
		if 'a' <= b && b <= 'z' {
			b -= 'a' - 'A'
		}
		q[i] = b
	}
	return q
}

// chat is a chat room in one Server: every message goes to everyone,
// with who said it, and joins and leaves are announced. Its state is the
// loop's alone (every callback runs on the loop), so it has no lock; a
// broadcast encodes its frame once for all.
func chat() *websocket.Server {
	room := map[*websocket.Conn]bool{}
	say := func(msg string) {
		conns := make([]*websocket.Conn, 0, len(room))
		for c := range room {
			conns = append(conns, c)
		}
		websocket.Broadcast(conns, websocket.Text, []byte(msg))
	}
	return &websocket.Server{
		OnOpen: func(c *websocket.Conn, r *http.Request) {
			c.Data = r.URL.Query().Get("name")
			room[c] = true
			say(fmt.Sprint(c.Data, " joined"))
		},
		Options: websocket.Options{
			OnMessage: func(c *websocket.Conn, _ websocket.MessageType, p []byte) {
				say(fmt.Sprintf("%s: %s", c.Data, p))
			},
			OnClose: func(c *websocket.Conn, _ *websocket.CloseError) {
				delete(room, c)
				say(fmt.Sprint(c.Data, " left"))
			},
		},
	}
}

// The chat with two members: alice joins, and each thing she sees makes
// bob do the next (join, say hi, leave).
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
	url := "ws://" + ln.Addr().String() + "/?name="
	srv := chat()
	l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })

	var bob *websocket.Conn
	alice := &websocket.Options{OnMessage: func(a *websocket.Conn, _ websocket.MessageType, p []byte) {
		fmt.Println("alice sees:", string(p))
		switch string(p) {
		case "alice joined":
			bob, _ = websocket.Dial(l, url+"bob", nil) // the handler's fiber suspends meanwhile
		case "bob joined":
			bob.WriteMessage(websocket.Text, []byte("hi"))
		case "bob: hi":
			bob.Close(websocket.CloseNormal, "")
		case "bob left":
			a.Close(websocket.CloseNormal, "")
			ln.Close()
		}
	}}
	l.Defer(func(core.CallbackID) {
		if _, err := websocket.Dial(l, url+"alice", alice); err != nil {
			log.Fatal(err)
		}
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// alice sees: alice joined
	// alice sees: bob joined
	// alice sees: bob: hi
	// alice sees: bob left
}

// A message too large to hold whole goes in fragments: here a server
// writes a report line by line, through a bufio.Writer so that a frame
// carries 4 KiB rather than a line, and the client gets it as one
// message.
func ExampleConn_NextWriter() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &websocket.Server{Options: websocket.Options{
		OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
			w, err := c.NextWriter(websocket.Text)
			if err != nil {
				return // the conn is closing
			}
			bw := bufio.NewWriter(w)
			for i := range 10_000 {
				fmt.Fprintf(bw, "line %d of the report\n", i)
			}
			bw.Flush()
			w.Close() // the last fragment: the conn's other sends wait until then
		},
	}}
	l.Defer(func(core.CallbackID) { srv.Serve(l, ln) })

	l.Defer(func(core.CallbackID) {
		c, err := websocket.Dial(l, "ws://"+ln.Addr().String()+"/", &websocket.Options{
			OnMessage: func(c *websocket.Conn, typ websocket.MessageType, p []byte) {
				fmt.Printf("one %s message of %d lines\n", typ, bytes.Count(p, []byte("\n")))
				c.Close(websocket.CloseNormal, "")
				ln.Close()
			},
		})
		if err != nil {
			log.Fatal(err)
		}
		c.WriteMessage(websocket.Text, []byte("report"))
	})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// one text message of 10000 lines
}
