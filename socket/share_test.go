//go:build unix || windows

package socket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Goroutines sharing a loop's conns lose nothing, whoever runs the loop
// (the ownership rule of the package doc): nobody (each blocked call runs
// the loop itself until its call is done, then hands it on), a goroutine
// in Run, or Runs that start and stop meanwhile. 2, 8 and 64 goroutines
// read and write shared conns under moving deadlines, every byte is
// counted at both ends (the peer is package net's), and the conns are
// closed while reads are pending in other goroutines.
func TestGoroutinesShareLoop(t *testing.T) {
	watchdog(t, 4*time.Minute)
	for _, owner := range []string{"nobody", "run", "runs come and go"} {
		for _, n := range []int{2, 8, 64} {
			t.Run(fmt.Sprintf("%s/%d", owner, n), func(t *testing.T) {
				eachDriver(t, func(t *testing.T, l *core.Loop) {
					switch owner {
					case "run":
						runLoop(t, l)
					case "runs come and go":
						flapRuns(t, l)
					}
					shareConns(t, l, n, false)
					shareConns(t, l, n, true)
				})
			})
		}
	}
}

// flapRuns has a goroutine run l in short runs, one after the other,
// until the test ends.
func flapRuns(t *testing.T, l *core.Loop) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			err := l.RunContext(ctx)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, core.ErrLoopRunning) {
				t.Errorf("RunContext: %v", err)
				return
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// shareConns has n goroutines use shared conns of l: with readers, half
// of them read what the peer echoes; without, all of them write and the
// peer only counts (the shape of the report that found writes lost).
func shareConns(t *testing.T, l *core.Loop, n int, readers bool) {
	const chunks, size = 16, 64 << 10
	stdLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stdLn.Close()
	k := max(1, min(4, n/2)) // conns; each gets writers and readers
	writes := func(i int) bool { return !readers || (i/k)%2 == 0 }
	writers := make([]int, k)
	for i := range n {
		if writes(i) {
			writers[i%k]++
		}
	}
	// The peer echoes every byte and counts what it got.
	var peerGot [4]atomic.Int64
	var peers sync.WaitGroup
	peers.Add(1)
	go func() {
		defer peers.Done()
		for i := range k {
			c, err := stdLn.Accept()
			if err != nil {
				t.Error(err)
				return
			}
			peers.Add(1)
			go func() {
				defer peers.Done()
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					m, err := c.Read(buf)
					peerGot[i].Add(int64(m))
					if m > 0 && readers {
						if _, werr := c.Write(buf[:m]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	conns := make([]*Conn, k)
	for i := range conns {
		c, err := Dial(l, "tcp", stdLn.Addr().String()) // from this goroutine
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var got [4]atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		c, ci := conns[i%k], i%k
		want := int64(writers[ci] * chunks * size)
		wg.Add(1)
		if writes(i) {
			go func() { // a writer
				defer wg.Done()
				buf := make([]byte, size)
				for j := range chunks {
					// A write deadline moved on every call, far enough.
					if err := c.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
						t.Error(err)
						return
					}
					if m, err := c.Write(buf); err != nil || m != size {
						t.Errorf("writer %d, chunk %d: %d, %v", i, j, m, err)
						return
					}
				}
			}()
			continue
		}
		go func() { // a reader: until its conn's bytes are all in
			defer wg.Done()
			buf := make([]byte, 8<<10)
			for got[ci].Load() < want {
				// Short deadlines: a reader whose peers took the last
				// bytes wakes up to see that it is over.
				if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
					t.Error(err)
					return
				}
				m, err := c.Read(buf)
				got[ci].Add(int64(m))
				if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("reader %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if !readers {
		// The peer has every byte once each conn's write side is shut.
		for _, c := range conns {
			if err := c.CloseWrite(); err != nil {
				t.Error(err)
			}
		}
		for i := range k {
			for deadline := time.Now().Add(time.Minute); peerGot[i].Load() < int64(writers[i]*chunks*size) && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
	}
	for i := range k {
		want := int64(writers[i] * chunks * size)
		if g := got[i].Load(); readers && g != want {
			t.Errorf("conn %d: read %d bytes back, want %d", i, g, want)
		}
		if g := peerGot[i].Load(); g != want {
			t.Errorf("conn %d: the peer got %d bytes, want %d", i, g, want)
		}
	}
	// Close each conn from a goroutine while another goroutine's Read
	// waits on it: the Read ends with net.ErrClosed.
	for _, c := range conns {
		if !readers {
			// The peer has closed its side: a Read would see the end.
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			continue
		}
		if err := c.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		readErr := make(chan error, 1)
		go func() {
			_, err := c.Read(make([]byte, 1))
			readErr <- err
		}()
		if err := goroutineWaits(l); err != nil { // the Read waits: Close wakes it
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }()
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-readErr; !errors.Is(err, net.ErrClosed) {
			t.Errorf("Read pending at Close: %v, want net.ErrClosed", err)
		}
		if err := c.Close(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("second Close: %v, want net.ErrClosed", err)
		}
	}
	stdLn.Close()
	peers.Wait()
}

// Close returns once the descriptor is closed and its address is free:
// with an Accept pending in another fiber (Close from a fiber) or in
// another goroutine (Close from a goroutine, with and without a goroutine
// running the loop), the port can be bound again the moment Close
// returns, as with package net (poll.FD.Close waits for the other users).
func TestCloseReturnsAfterClose(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const trials = 20
	rebind := func(t *testing.T, addr string) {
		t.Helper()
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s after Close returned: %v", addr, err)
		}
		ln.Close()
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		t.Run("fibers", func(t *testing.T) {
			for range trials {
				ln, err := Listen(l, "tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr := ln.Addr().String()
				var acceptErr error
				l.Defer(func(core.CallbackID) { _, acceptErr = ln.Accept() })
				l.Defer(func(core.CallbackID) {
					l.Defer(func(core.CallbackID) { // the Accept waits by now
						if err := ln.Close(); err != nil {
							t.Errorf("Close: %v", err)
						}
						rebind(t, addr)
					})
				})
				if err := l.Run(); err != nil {
					t.Fatal(err)
				}
				if !errors.Is(acceptErr, net.ErrClosed) {
					t.Fatalf("Accept pending at Close: %v, want net.ErrClosed", acceptErr)
				}
			}
		})
		for _, owner := range []string{"nobody", "run"} {
			t.Run("goroutines/"+owner, func(t *testing.T) {
				if owner == "run" {
					runLoop(t, l)
				}
				for range trials {
					ln, err := Listen(l, "tcp", "127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					addr := ln.Addr().String()
					acceptErr := make(chan error, 1)
					go func() {
						_, err := ln.Accept()
						acceptErr <- err
					}()
					if err := goroutineWaits(l); err != nil { // the Accept waits: Close wakes it
						t.Fatal(err)
					}
					if err := ln.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
					rebind(t, addr)
					if err := <-acceptErr; !errors.Is(err, net.ErrClosed) {
						t.Fatalf("Accept pending at Close: %v, want net.ErrClosed", err)
					}
				}
			})
		}
	})
}
