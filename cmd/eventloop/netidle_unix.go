//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

// The client of bench --net's idle table is the hidden subcommand
// `eventloop netidle`, a process of its own:
//
//	eventloop netidle -addr HOST:PORT -conns N [-active-every K] [-interval D]
//
// It opens N connections, each echoing one byte before the next is
// opened (so that the server is known to hold them all), and says
// "connected N" on stdout. Then it reads commands on stdin: "active"
// starts every K-th connection sending a line every interval, spread
// over the interval, each checked when its echo comes back; "stop" stops
// them and prints a netIdleResult as one JSON line. At the end of stdin
// it closes its connections and exits.
//
// Its source addresses rotate over 127.0.0.1 to 127.0.0.254 (Linux
// answers all of 127.0.0.0/8 on the loopback), so that a hundred
// thousand connections to one port do not run out of ephemeral ports;
// where 127.0.0.2 cannot be bound (macOS configures only 127.0.0.1), all
// come from 127.0.0.1.

// netIdleLine is the size of an active connection's line.
const netIdleLine = 32

// netIdleDialers open the connections in parallel: one at a time, a
// hundred thousand round trips would take long; too many at once would
// overflow the server's accept queue.
const netIdleDialers = 4

// netIdleResult is what the client measured of the active connections.
type netIdleResult struct {
	Conns  int   `json:"conns"`
	Active int   `json:"active"`
	Lines  int64 `json:"lines"` // echoed back and checked
	// RTTp50us and RTTp99us are the lines' round trips, µs.
	RTTp50us float64 `json:"rtt_p50_us"`
	RTTp99us float64 `json:"rtt_p99_us"`
	Error    string  `json:"error,omitempty"`
}

func netIdleCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("netidle", flag.ContinueOnError)
	addr := fs.String("addr", "", "server address, host:port")
	conns := fs.Int("conns", 1000, "connections to hold")
	every := fs.Int("active-every", 100, "every this many connections, one sends a line each interval once active")
	interval := fs.Duration("interval", time.Second, "how often an active connection sends a line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *addr == "" || fs.NArg() > 0:
		return errors.New("want -addr HOST:PORT and no arguments")
	case *conns < 1:
		return fmt.Errorf("-conns %d: want at least 1", *conns)
	case *every < 1:
		return fmt.Errorf("-active-every %d: want at least 1", *every)
	case *interval <= 0:
		return fmt.Errorf("-interval %v: want a positive interval", *interval)
	}
	limit, err := fdlimit.RaiseAll()
	if err != nil {
		return err
	}
	if need := uint64(*conns) + netSpareFDs; limit < need {
		return fmt.Errorf("-conns %d: RLIMIT_NOFILE is %d here, and the client needs %d descriptors", *conns, limit, need)
	}
	cs, err := dialIdle(*addr, *conns)
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "connected %d\n", len(cs))
	var active *idleActive
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		switch cmd := sc.Text(); {
		case cmd == "active" && active == nil:
			active = startActive(cs, *every, *interval)
		case cmd == "stop" && active != nil:
			res := active.stop()
			res.Conns = len(cs)
			if err := json.NewEncoder(stdout).Encode(res); err != nil {
				return err
			}
		default:
			return fmt.Errorf("command %q: want active, then stop", cmd)
		}
	}
	return sc.Err()
}

// netSpareFDs is what a process of the benchmark needs besides its
// connections.
const netSpareFDs = 256

// dialIdle opens n connections to addr, each echoing a byte once.
func dialIdle(addr string, n int) ([]net.Conn, error) {
	spread := canBind("127.0.0.2")
	cs := make([]net.Conn, n)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range netIdleDialers {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				d := net.Dialer{Timeout: 10 * time.Second}
				if spread {
					d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i%254))}
				}
				c, err := d.Dial("tcp", addr)
				if err == nil {
					cs[i] = c
					err = echoByte(c, byte(i))
				}
				if err != nil {
					err = fmt.Errorf("connection %d of %d: %w", i+1, n, err)
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	wg.Wait()
	cs = slices.DeleteFunc(cs, func(c net.Conn) bool { return c == nil })
	if p := failed.Load(); p != nil {
		return cs, *p
	}
	return cs, nil
}

// canBind reports whether a TCP socket may be bound to ip.
func canBind(ip string) bool {
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// echoByte sends b on c and checks that it comes back.
func echoByte(c net.Conn, b byte) error {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte{b}); err != nil {
		return err
	}
	got := []byte{0}
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if got[0] != b {
		return fmt.Errorf("echo of %d: %d", b, got[0])
	}
	return nil
}

// idleActive is the active connections at work.
type idleActive struct {
	n    int
	quit chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	rtts []time.Duration
	err  error
}

// startActive starts every every-th connection of cs sending a line each
// interval, their starts spread over the first interval.
func startActive(cs []net.Conn, every int, interval time.Duration) *idleActive {
	a := &idleActive{quit: make(chan struct{})}
	for i := 0; i < len(cs); i += every {
		a.n++
	}
	k := 0
	for i := 0; i < len(cs); i += every {
		offset := interval * time.Duration(k) / time.Duration(a.n)
		k++
		a.wg.Go(func() { a.run(cs[i], uint64(i), offset, interval) })
	}
	return a
}

// run sends a line on c every interval until quit.
func (a *idleActive) run(c net.Conn, id uint64, offset, interval time.Duration) {
	select {
	case <-time.After(offset):
	case <-a.quit:
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	out, in := make([]byte, netIdleLine), make([]byte, netIdleLine)
	for seq := uint64(0); ; seq++ {
		fillLine(out, id, seq)
		start := time.Now()
		c.SetDeadline(start.Add(10 * time.Second))
		_, err := c.Write(out)
		if err == nil {
			_, err = io.ReadFull(c, in)
		}
		if err == nil && !bytes.Equal(in, out) {
			err = fmt.Errorf("the echo of line %d differs from what was sent", seq)
		}
		rtt := time.Since(start)
		a.mu.Lock()
		if err != nil && a.err == nil {
			a.err = fmt.Errorf("active connection %d: %w", id+1, err)
		}
		if err == nil {
			a.rtts = append(a.rtts, rtt)
		}
		a.mu.Unlock()
		if err != nil {
			return
		}
		select {
		case <-t.C:
		case <-a.quit:
			return
		}
	}
}

// stop stops the active connections and says what they measured.
func (a *idleActive) stop() netIdleResult {
	close(a.quit)
	a.wg.Wait()
	res := netIdleResult{Active: a.n, Lines: int64(len(a.rtts))}
	if a.err != nil {
		res.Error = a.err.Error()
	}
	if len(a.rtts) > 0 {
		slices.Sort(a.rtts)
		res.RTTp50us = float64(quantileOf(a.rtts, 0.50).Nanoseconds()) / 1e3
		res.RTTp99us = float64(quantileOf(a.rtts, 0.99).Nanoseconds()) / 1e3
	}
	return res
}

// quantileOf is the sample of sorted that a fraction q of them do not
// exceed (nearest rank).
func quantileOf(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// fillLine writes line seq of connection id into b: their numbers, a
// filler that depends on both, and a newline.
func fillLine(b []byte, id, seq uint64) {
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint64(b[8:], seq)
	for i := 16; i < len(b)-1; i++ {
		b[i] = 'a' + byte(id+seq+uint64(i))%26
	}
	b[len(b)-1] = '\n'
}
