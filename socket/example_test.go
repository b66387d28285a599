//go:build unix || windows

package socket_test

import (
	"fmt"
	"io"
	"log"
	"net"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// The package doc's echo server, with a client on a goroutine of its own
// (package net's, which knows nothing of the loop). Run returns once the
// listener is closed and the last conn has ended.
func Example() {
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
		for {
			c, err := ln.Accept() // the fiber suspends; the loop goes on
			if err != nil {
				return
			}
			l.Defer(func(core.CallbackID) { io.Copy(c, c); c.Close() })
		}
	})

	addr := ln.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer ln.Close()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		c.Write([]byte("ping"))
		c.(*net.TCPConn).CloseWrite() // the echo's io.Copy sees its EOF
		echo, err := io.ReadAll(c)
		fmt.Printf("echoed %q, %v\n", echo, err)
	}()

	if err := l.Run(); err != nil { // until ln is closed and the last conn ends
		log.Fatal(err)
	}
	<-done
	fmt.Println("Run returned")
	// Output:
	// echoed "ping", <nil>
	// Run returned
}
