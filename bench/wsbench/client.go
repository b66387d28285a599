package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gorilla "github.com/gorilla/websocket"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

// The client, a process of its own (wsbench -client echo|idle|broadcast),
// run by the benchmark: gorilla's client, one goroutine per conn. It talks
// to the benchmark with lines: on stdout it says "connected N" once its
// conns are upgraded, "count N" (the echoes so far) when asked, "error
// ..." for any failure, and "done N" before it exits; on stdin it takes
// "start" (the echo loops begin), "count", "wait N" (broadcast: answer
// "count N" once N broadcast messages have come, all conns together, or
// an error after 30 s) and "stop" (the loops end, the conns close, the
// process exits). The end of stdin is a stop too. With -compress on each
// conn offers permessage-deflate, and a server that does not agree to it
// fails the run.

// broadcastSize is the size of the message a server broadcasts
// (bench/wspeers).
const broadcastSize = 64

// clientLines serializes the client's stdout.
var clientLines sync.Mutex

func tell(format string, args ...any) {
	clientLines.Lock()
	defer clientLines.Unlock()
	fmt.Printf(format+"\n", args...)
}

// dialer is the client's: small buffers, the messages are small.
var dialer = &gorilla.Dialer{
	HandshakeTimeout: 30 * time.Second,
	ReadBufferSize:   1024,
	WriteBufferSize:  1024,
}

// compressingDialer is dialer offering permessage-deflate (gorilla's
// offer: no context takeover either way).
var compressingDialer = func() *gorilla.Dialer {
	d := *dialer
	d.EnableCompression = true
	return &d
}()

func dial(addr string, compress bool) (*gorilla.Conn, error) {
	d := dialer
	if compress {
		d = compressingDialer
	}
	c, resp, err := d.Dial("ws://"+addr+"/", nil)
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%w (status %s)", err, resp.Status)
		}
		return nil, err
	}
	if compress && !strings.Contains(resp.Header.Get("Sec-WebSocket-Extensions"), "permessage-deflate") {
		c.Close()
		return nil, fmt.Errorf("the server did not agree to permessage-deflate (Sec-WebSocket-Extensions: %q)", resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	return c, nil
}

// runClient is wsbench -client MODE.
func runClient(mode, addr string, cfg config) error {
	if mode != "echo" && mode != "idle" && mode != "broadcast" {
		return fmt.Errorf("-client %q: want echo, idle or broadcast", mode)
	}
	if _, err := fdlimit.RaiseAll(); err != nil {
		fmt.Fprintln(os.Stderr, "wsbench client: RLIMIT_NOFILE:", err)
	}
	cs, err := dialAll(addr, cfg.conns, cfg.dialers, cfg.compress)
	if err != nil {
		return err
	}
	tell("connected %d", len(cs))
	size := cfg.size
	var echoes atomic.Int64
	var stop atomic.Bool
	var failed atomic.Int64
	var wg sync.WaitGroup
	if mode == "broadcast" {
		for i, c := range cs {
			wg.Go(func() {
				if err := receiveBroadcasts(c, &echoes); err != nil && !stop.Load() {
					failed.Add(1)
					tell("error conn %d: %v", i, err)
				}
			})
		}
	}
	started := false
	start := func() {
		if started || mode != "echo" {
			return
		}
		started = true
		for i, c := range cs {
			wg.Go(func() {
				if err := echoLoop(c, uint64(i), size, &stop, &echoes); err != nil {
					failed.Add(1)
					tell("error conn %d: %v", i, err)
				}
			})
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "start":
			start()
			continue
		case "count":
			tell("count %d", echoes.Load())
			continue
		case "stop":
		default:
			if n, ok := strings.CutPrefix(sc.Text(), "wait "); ok && mode == "broadcast" {
				go awaitCount(n, &echoes)
				continue
			}
			tell("error unknown command %q", sc.Text())
			continue
		}
		break
	}
	stop.Store(true)
	if mode == "broadcast" {
		for _, c := range cs {
			c.Close() // ends the readers
		}
	}
	wg.Wait()
	for _, c := range cs {
		c.Close()
	}
	tell("done %d", echoes.Load())
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d conns failed", n)
	}
	return nil
}

// dialAll opens n conns to addr, dialers at a time.
func dialAll(addr string, n, dialers int, compress bool) ([]*gorilla.Conn, error) {
	cs := make([]*gorilla.Conn, n)
	var next atomic.Int64
	errs := make([]error, dialers)
	var wg sync.WaitGroup
	for d := range dialers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				c, err := dial(addr, compress)
				if err != nil {
					errs[d] = fmt.Errorf("dial %d of %d: %w", i+1, n, err)
					next.Store(int64(n)) // the others stop too
					return
				}
				cs[i] = c
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range cs {
			if c != nil {
				c.Close()
			}
		}
		return nil, err
	}
	return cs, nil
}

// echoLoop sends a binary message of size bytes on c and waits for its
// echo, again and again until stop, counting each echo that comes back
// byte for byte. A message holds the conn's number and a sequence number,
// so an echo of an earlier message, or of another conn's, does not pass.
func echoLoop(c *gorilla.Conn, id uint64, size int, stop *atomic.Bool, echoes *atomic.Int64) error {
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(i*7 + 1)
	}
	got := make([]byte, size+1) // one more: a longer echo is caught
	for seq := uint64(1); !stop.Load(); seq++ {
		if size >= 16 {
			binary.LittleEndian.PutUint64(msg[0:], id)
			binary.LittleEndian.PutUint64(msg[8:], seq)
		} else if size > 0 {
			msg[0] = byte(seq)
		}
		if err := c.WriteMessage(gorilla.BinaryMessage, msg); err != nil {
			return err
		}
		typ, r, err := c.NextReader()
		if err != nil {
			return err
		}
		n, err := io.ReadFull(r, got)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return fmt.Errorf("reading echo %d: %w", seq, err)
		}
		if typ != gorilla.BinaryMessage || n != size || !bytes.Equal(got[:n], msg) {
			return fmt.Errorf("echo %d: type %d, %d bytes %x, want type %d, %d bytes %x",
				seq, typ, n, got[:n], gorilla.BinaryMessage, size, msg)
		}
		echoes.Add(1)
	}
	return nil
}

// receiveBroadcasts reads the broadcasts on c, counting each in got:
// every one must be a binary message of broadcastSize bytes whose first 8
// count the broadcasts from 1, so that none is lost, repeated or
// reordered unseen.
func receiveBroadcasts(c *gorilla.Conn, got *atomic.Int64) error {
	for want := uint64(1); ; want++ {
		typ, p, err := c.ReadMessage()
		if err != nil {
			return err
		}
		if typ != gorilla.BinaryMessage || len(p) != broadcastSize || binary.LittleEndian.Uint64(p) != want {
			return fmt.Errorf("broadcast %d: type %d, %d bytes %x", want, typ, len(p), p)
		}
		got.Add(1)
	}
}

// awaitCount answers "wait N": "count N" once got reaches N, an error if
// it has not in 30 s.
func awaitCount(arg string, got *atomic.Int64) {
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		tell("error wait %q: not a count", arg)
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for got.Load() < n {
		if time.Now().After(deadline) {
			tell("error %d broadcast messages came in 30 s, want %d", got.Load(), n)
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
	tell("count %d", got.Load())
}

// probe checks that a server on addr upgrades a conn and echoes a
// message on it.
func probe(addr string) error {
	d := *dialer
	d.HandshakeTimeout = time.Second
	c, _, err := d.Dial("ws://"+addr+"/", nil)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Second))
	c.SetWriteDeadline(time.Now().Add(time.Second))
	msg := []byte("probe: is this echoed?")
	if err := c.WriteMessage(gorilla.BinaryMessage, msg); err != nil {
		return err
	}
	typ, p, err := c.ReadMessage()
	if err != nil {
		return err
	}
	if typ != gorilla.BinaryMessage || !bytes.Equal(p, msg) {
		return fmt.Errorf("probe: echo %q of type %d, want %q", p, typ, msg)
	}
	return nil
}
