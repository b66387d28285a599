//go:build unix || windows

package socket_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// A line protocol served without a fiber per conn: every line comes back
// upper-cased. Between lines a conn holds no fiber and no read buffer,
// only the part of a line it has so far: the client here sends "world"
// in two pieces, the second once the first has been answered.
func ExampleListener_Serve() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	l.Defer(func(core.CallbackID) {
		ln.Serve(func(c *socket.Conn, in []byte, err error) int {
			done := 0
			for {
				i := bytes.IndexByte(in[done:], '\n')
				if i < 0 {
					return done // the rest of the line comes in a later run
				}
				c.Write(bytes.ToUpper(in[done : done+i+1]))
				done += i + 1
			}
		})
	})

	l.Defer(func(core.CallbackID) { // a client, in a fiber of the same loop
		defer ln.Close()
		c, err := socket.Dial(l, "tcp", ln.Addr().String())
		if err != nil {
			log.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for _, piece := range []string{"hello\nwor", "ld\n"} {
			c.Write([]byte(piece))
			line, _ := r.ReadString('\n') // "wor" waits on the server meanwhile
			fmt.Print(line)
		}
	})
	if err := l.Run(); err != nil { // until ln is closed and its conns end
		log.Fatal(err)
	}
	// Output:
	// HELLO
	// WORLD
}
