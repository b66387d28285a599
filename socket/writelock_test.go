//go:build unix || windows

package socket

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Two Writes on one stream conn never interleave their bytes: each
// Write's bytes arrive in one piece, as net.Conn promises of net's (its
// write lock, fdMutex), and as Write keeps it by holding the direction's
// lock (core.FD.Lock) across all its system calls, not just a reference.
// Two writers, goroutines in one case and fibers of the loop in the
// other, write 4 MiB each, every byte of a Write the same value and the
// two values different, while the peer reads: what arrives is one run of
// each value. The second Write starts once the peer has read the first
// bytes of the first, which is then waiting for room in the socket: room
// that the second Write finds at once (from a fiber, before the first is
// woken), and takes unless it waits for its turn.
func TestWritesDoNotInterleave(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const size = 4 << 20
	for _, who := range []string{"goroutines", "fibers"} {
		t.Run(who, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				a, b := pair(t, l)
				// Small, so that the first Write waits for room often.
				if err := a.SetWriteBuffer(16 << 10); err != nil {
					t.Fatal(err)
				}
				write := func(v byte) {
					if n, err := a.Write(bytes.Repeat([]byte{v}, size)); n != size || err != nil {
						t.Errorf("Write of %q: %d, %v", v, n, err)
					}
				}
				var runs []run
				// read reads both Writes; first starts the second, once
				// (on an error too, so that it does not wait forever).
				read := func(first func()) {
					var once sync.Once
					start := func() { once.Do(first) }
					defer start()
					var err error
					if runs, err = readRuns(b, 2*size, start); err != nil {
						t.Error(err)
					}
				}
				switch who {
				case "goroutines":
					// Nobody runs the loop: the blocked calls take turns
					// at running it themselves.
					started := make(chan struct{})
					var wg sync.WaitGroup
					for _, f := range []func(){
						func() { write('a') },
						func() { <-started; write('b') },
						func() { read(func() { close(started) }) },
					} {
						wg.Add(1)
						go func() { defer wg.Done(); f() }()
					}
					wg.Wait()
				case "fibers":
					var second *core.Suspension
					fiber(l, func() { write('a') })
					fiber(l, func() {
						second = l.Suspension()
						if _, err := second.Suspend(); err != nil {
							t.Error(err)
							return
						}
						write('b')
					})
					fiber(l, func() { read(func() { second.Resume(nil) }) })
					if err := l.Run(); err != nil {
						t.Fatal(err)
					}
				}
				if len(runs) != 2 || runs[0].n != size || runs[1].n != size {
					t.Fatalf("the peer read %s; want one run of 4 MiB of each Write's byte: the Writes interleaved", runsString(runs))
				}
			})
		})
	}
}

// run is a stretch of one byte value in a stream.
type run struct {
	v byte
	n int
}

// readRuns reads n bytes from r and returns them as runs of one value;
// first runs after the first Read.
func readRuns(r io.Reader, n int, first func()) ([]run, error) {
	var runs []run
	buf := make([]byte, 64<<10)
	for n > 0 {
		k, err := r.Read(buf[:min(len(buf), n)])
		n -= k
		if first != nil {
			first()
			first = nil
		}
		got := buf[:k]
		if k > 0 && bytes.Count(got, got[:1]) == k && len(runs) > 0 && runs[len(runs)-1].v == got[0] {
			runs[len(runs)-1].n += k // the common case, without a loop per byte
			got = nil
		}
		for _, v := range got {
			if len(runs) == 0 || runs[len(runs)-1].v != v {
				runs = append(runs, run{v: v})
			}
			runs[len(runs)-1].n++
		}
		if err != nil {
			return runs, fmt.Errorf("Read with %d bytes still to come: %v", n, err)
		}
	}
	return runs, nil
}

// runsString shows the first runs of a stream, and how many there are.
func runsString(runs []run) string {
	var s string
	for i, r := range runs {
		if i == 6 {
			s += " ..."
			break
		}
		s += fmt.Sprintf(" %d×%q", r.n, r.v)
	}
	return fmt.Sprintf("%d runs:%s", len(runs), s)
}
