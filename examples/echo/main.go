// Command echo is a TCP echo server written the way a Go programmer writes
// one with package net, on an event loop: a fiber per connection, each
// reading and writing in blocking style while the loop serves the others.
//
//	go run ./examples/echo                       # serve, talk to it, stop
//	go run ./examples/echo -serve 127.0.0.1:7007 # serve until Ctrl-C
//	EVENTLOOP_DRIVER=stream go run ./examples/echo
//
// Without -serve it also plays the clients: one in a fiber of the same
// loop (package socket), one on a goroutine of its own (package net).
// Package socket serves on Unix and Windows; elsewhere Listen says so.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

func main() {
	serve := flag.String("serve", "", "serve on this address until interrupted")
	flag.Parse()
	if err := run(*serve); err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
}

func run(serve string) error {
	l, err := eventloop.New()
	if err != nil {
		return err
	}
	defer l.Close() // ends the fibers of connections still open
	addr := serve
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := socket.Listen(l, "tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Printf("listening on %s (driver %s)\n", ln.Addr(), l.Driver().Name())

	// The accept loop is a fiber: Accept suspends it until a client comes.
	l.Defer(func(core.CallbackID) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener was closed
			}
			l.Defer(func(core.CallbackID) { echo(c) })
		}
	})

	if serve != "" {
		if _, err := l.OnSignal(os.Interrupt, func(core.CallbackID, os.Signal) {
			ln.Close()
			l.Stop()
		}); err != nil {
			return err
		}
		return l.Run()
	}

	// A client in a fiber of the same loop.
	done := 0
	l.Defer(func(core.CallbackID) {
		defer func() { done++ }()
		if err := talk(func() (net.Conn, error) { return socket.Dial(l, "tcp", ln.Addr().String()) }, "fiber"); err != nil {
			fmt.Println("fiber client:", err)
		}
	})
	// A client on a goroutine, with package net: it needs nothing of the
	// loop. Its result comes back through Post.
	go func() {
		err := talk(func() (net.Conn, error) { return net.Dial("tcp", ln.Addr().String()) }, "goroutine")
		l.Post(func() {
			done++
			if err != nil {
				fmt.Println("goroutine client:", err)
			}
		})
	}()
	// Stop once both clients are done (the listener's Accept would keep
	// the loop running).
	l.Repeat(10*time.Millisecond, func(id core.CallbackID) {
		if done == 2 {
			l.Cancel(id)
			ln.Close()
		}
	})
	return l.Run()
}

// echo writes back what it reads until the client closes.
func echo(c net.Conn) {
	defer c.Close()
	if _, err := io.Copy(c, c); err != nil && !errors.Is(err, net.ErrClosed) {
		fmt.Println("echo:", err)
	}
}

// talk sends three lines and prints what comes back.
func talk(dial func() (net.Conn, error), who string) error {
	c, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for i := range 3 {
		fmt.Fprintf(c, "line %d from the %s client\n", i, who)
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		fmt.Print("echoed: ", line)
	}
	return nil
}
