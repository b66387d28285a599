package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The load client of the network benchmark is the hidden subcommand
// `eventloop netclient`, run by `bench --net` as a process of its own for
// each cell, so that no server ever shares a process, a Go runtime or a
// scheduler with it. It lives in the command rather than in the peers
// module because it needs the standard library only: a bare `go build` of
// the command can measure our servers without the peers, and the tests run
// it from their own binary without building the peers module.
//
//	eventloop netclient -addr HOST:PORT -mode pingpong|pipelined -conns C
//	                    -warmup D -window D [-pid SERVER_PID]
//
// It prints one JSON line, a netClientResult.

// Messages: each is netMsgSize bytes, the connection's number, the
// message's number and a filler that depends on both, so that an echo that
// lost, repeated, reordered or mixed up messages between connections fails
// the byte-for-byte check.
const (
	netMsgSize       = 64
	netPipelineDepth = 16 // messages in flight per connection, pipelined
)

// Modes of the client.
const (
	modePingPong  = "pingpong"
	modePipelined = "pipelined"
)

// netClientGrace is how long past the end of its window the client waits
// for its connections to stop before it gives up on them; every socket
// deadline is set within it, so no read or write blocks past it.
const netClientGrace = 5 * time.Second

// netClientResult is the client's report of one cell.
type netClientResult struct {
	RoundTrips int64   `json:"round_trips"` // messages echoed back and checked in the window
	Seconds    float64 `json:"seconds"`     // length of the window, measured
	// CPUTicks is utime+stime of the server process over the window, in
	// clock ticks; CPUError says why it is missing.
	CPUTicks int64  `json:"cpu_ticks"`
	CPUError string `json:"cpu_error,omitempty"`
	// SysReads and SysWrites are the read-like and write-like system calls
	// the server process made over the window (/proc/<pid>/io), with
	// SysError saying why they are missing.
	SysReads  int64  `json:"sys_reads"`
	SysWrites int64  `json:"sys_writes"`
	SysError  string `json:"sys_error,omitempty"`
	Error     string `json:"error,omitempty"`
}

func netClientCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("netclient", flag.ContinueOnError)
	addr := fs.String("addr", "", "server address, host:port")
	mode := fs.String("mode", modePingPong, "pingpong or pipelined")
	conns := fs.Int("conns", 1, "connections, one goroutine each")
	warmup := fs.Duration("warmup", 500*time.Millisecond, "warm-up before the window")
	window := fs.Duration("window", 2*time.Second, "measured window")
	pid := fs.Int("pid", 0, "server process whose CPU time to read from /proc (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *addr == "" || fs.NArg() > 0:
		return errors.New("want -addr HOST:PORT and no arguments")
	case *mode != modePingPong && *mode != modePipelined:
		return fmt.Errorf("unknown -mode %q: pingpong or pipelined", *mode)
	case *conns < 1 || *conns > 10000:
		return fmt.Errorf("-conns %d: want 1 to 10000", *conns)
	case *warmup < 0 || *window <= 0 || *warmup+*window > time.Hour:
		return fmt.Errorf("-warmup %v -window %v: want a positive window, an hour at most in all", *warmup, *window)
	case *pid == os.Getpid():
		return errors.New("-pid is the client's own process: the server must be another")
	}
	res, err := netLoad(*addr, *mode, *conns, *warmup, *window, *pid)
	if err != nil {
		res.Error = err.Error()
	}
	if jerr := json.NewEncoder(stdout).Encode(res); jerr != nil {
		return jerr
	}
	return err
}

// netConn is one connection's state, padded so that the counters of two
// connections do not share a cache line.
type netConn struct {
	c    net.Conn
	id   uint64
	done atomic.Int64 // round trips completed and checked
	_    [48]byte
}

// netLoad runs the load on conns connections to addr: a warm-up, then a
// window at whose ends it reads the round trips done and the CPU time of
// process pid.
func netLoad(addr, mode string, conns int, warmup, window time.Duration, pid int) (netClientResult, error) {
	var res netClientResult
	end := time.Now().Add(warmup + window + netClientGrace)
	cs := make([]*netConn, conns)
	closeAll := func() {
		for _, c := range cs {
			if c != nil {
				c.c.Close()
			}
		}
	}
	for i := range cs {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			closeAll()
			return res, fmt.Errorf("connection %d of %d: %w", i+1, conns, err)
		}
		c.SetDeadline(end)
		cs[i] = &netConn{c: c, id: uint64(i)}
	}
	defer closeAll()

	var stop atomic.Bool
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			var err error
			if mode == modePipelined {
				err = pipelined(c, &stop)
			} else {
				err = pingPong(c, &stop)
			}
			if err != nil && !stop.Load() {
				errOnce.Do(func() { firstErr = fmt.Errorf("connection %d: %w", c.id+1, err) })
			}
		})
	}
	count := func() (n int64) {
		for _, c := range cs {
			n += c.done.Load()
		}
		return n
	}

	time.Sleep(warmup)
	cpu0, cpuErr := procCPUTicks(pid)
	r0, w0, sysErr := procIOCalls(pid)
	n0, t0 := count(), time.Now()
	time.Sleep(window)
	n1, t1 := count(), time.Now()
	cpu1, cpuErr1 := procCPUTicks(pid)
	r1, w1, sysErr1 := procIOCalls(pid)

	stop.Store(true)
	for _, c := range cs {
		c.c.SetDeadline(time.Now()) // wakes the goroutines blocked on the socket
	}
	wg.Wait()

	res.RoundTrips, res.Seconds = n1-n0, t1.Sub(t0).Seconds()
	if cpuErr = errors.Join(cpuErr, cpuErr1); cpuErr != nil {
		res.CPUError = cpuErr.Error()
	} else {
		res.CPUTicks = cpu1 - cpu0
	}
	if sysErr = errors.Join(sysErr, sysErr1); sysErr != nil {
		res.SysError = sysErr.Error()
	} else {
		res.SysReads, res.SysWrites = r1-r0, w1-w0
	}
	if firstErr != nil {
		return res, firstErr
	}
	if res.RoundTrips <= 0 {
		return res, errors.New("no round trip completed in the window")
	}
	return res, nil
}

// fillMsg writes message seq of connection id into b (netMsgSize bytes).
func fillMsg(b []byte, id, seq uint64) {
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint64(b[8:], seq)
	x := byte(id*131 + seq*31)
	for i := 16; i < netMsgSize; i++ {
		b[i] = x + byte(i)
	}
}

// pingPong sends one message and reads its echo, until stop.
func pingPong(c *netConn, stop *atomic.Bool) error {
	out := make([]byte, netMsgSize)
	in := make([]byte, netMsgSize)
	for seq := uint64(0); !stop.Load(); seq++ {
		fillMsg(out, c.id, seq)
		if _, err := c.c.Write(out); err != nil {
			return err
		}
		if _, err := io.ReadFull(c.c, in); err != nil {
			return err
		}
		if !bytes.Equal(in, out) {
			return fmt.Errorf("echo of message %d differs from what was sent", seq)
		}
		c.done.Add(1)
	}
	return nil
}

// pipelined keeps netPipelineDepth messages in flight: it reads whatever
// has come back, checks each whole message against the one sent under its
// number (TCP keeps the order), and sends as many new ones.
func pipelined(c *netConn, stop *atomic.Bool) error {
	const window = netPipelineDepth * netMsgSize
	out := make([]byte, window)
	in := make([]byte, window)
	want := make([]byte, netMsgSize)
	var sent, got uint64
	for ; sent < netPipelineDepth; sent++ {
		fillMsg(out[sent*netMsgSize:], c.id, sent)
	}
	if _, err := c.c.Write(out); err != nil {
		return err
	}
	have := 0 // bytes of in not yet checked, a partial message at most
	for !stop.Load() {
		n, err := c.c.Read(in[have:])
		if err != nil {
			return err
		}
		have += n
		whole := have / netMsgSize
		for i := range whole {
			fillMsg(want, c.id, got)
			if !bytes.Equal(in[i*netMsgSize:(i+1)*netMsgSize], want) {
				return fmt.Errorf("echo of message %d differs from what was sent", got)
			}
			got++
		}
		have = copy(in, in[whole*netMsgSize:have])
		c.done.Add(int64(whole))
		if whole == 0 {
			continue
		}
		for i := range whole {
			fillMsg(out[i*netMsgSize:], c.id, sent)
			sent++
		}
		if _, err := c.c.Write(out[:whole*netMsgSize]); err != nil {
			return err
		}
	}
	return nil
}
