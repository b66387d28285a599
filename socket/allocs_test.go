//go:build unix || windows

package socket

import (
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// allocNoise is the most allocations per round that are not the path's:
// the count is the process's, and its other goroutines (the runtime's, a
// driver's helper) allocate a few times in a thousand rounds (0.000 to
// 0.005 a round measured here, with -race and under Wine too), while a
// path that allocates makes at least one a round, or one in every few.
const allocNoise = 0.1

// noAllocsPerRound reports whether perRound, a process's allocations per
// round, says that the path allocated nothing.
func noAllocsPerRound(perRound float64) bool { return perRound < allocNoise }

// pingPongAllocs has two fibers of l bounce a message rounds times, each
// side's receive suspending until the other sends, and returns the heap
// allocations per round of the process, counted after the first rounds
// (which make the watchers), as testing.AllocsPerRun counts them.
func pingPongAllocs(t *testing.T, l *core.Loop, rounds int, ping, pong func() error) float64 {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const warm = 10
	var before, after runtime.MemStats
	l.Defer(func(core.CallbackID) {
		for range rounds {
			if err := pong(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	l.Defer(func(core.CallbackID) {
		for i := range rounds {
			if i == warm {
				runtime.ReadMemStats(&before)
			}
			if err := ping(); err != nil {
				t.Error(err)
				return
			}
		}
		runtime.ReadMemStats(&after)
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	return float64(after.Mallocs-before.Mallocs) / float64(rounds-warm)
}

// The fiber path allocates nothing once a conn exists: a Read that
// suspends and is resumed, a Write, and their datagram counterparts
// ReadFromUDPAddrPort and WriteToUDPAddrPort, on every driver. Deadlines
// that move every round (as a server's per-request ones do) re-arm the
// timer without allocating either.
func TestFiberPathAllocatesNothing(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	watchdog(t, 2*time.Minute)
	const rounds = 1000
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		check := func(t *testing.T, what string, perRound float64) {
			t.Helper()
			t.Logf("%s: %.3f allocations per round trip", what, perRound)
			if !noAllocsPerRound(perRound) {
				t.Errorf("%s: %.3f allocations per round trip, want 0", what, perRound)
			}
		}
		t.Run("Stream", func(t *testing.T) {
			a, b := pair(t, l)
			defer a.Close()
			defer b.Close()
			abuf, bbuf := make([]byte, 1), make([]byte, 1)
			check(t, "Read and Write", pingPongAllocs(t, l, rounds,
				func() error {
					if _, err := a.Write(abuf); err != nil {
						return err
					}
					_, err := a.Read(abuf)
					return err
				},
				func() error {
					if _, err := b.Read(bbuf); err != nil {
						return err
					}
					_, err := b.Write(bbuf)
					return err
				}))
			check(t, "Read and Write with a deadline moved every round", pingPongAllocs(t, l, rounds,
				func() error {
					a.SetDeadline(time.Now().Add(time.Minute))
					if _, err := a.Write(abuf); err != nil {
						return err
					}
					_, err := a.Read(abuf)
					return err
				},
				func() error {
					b.SetDeadline(time.Now().Add(time.Minute))
					if _, err := b.Read(bbuf); err != nil {
						return err
					}
					_, err := b.Write(bbuf)
					return err
				}))
		})
		t.Run("Packet", func(t *testing.T) {
			a, b := listenOurs(t, l, "udp4"), listenOurs(t, l, "udp4")
			aAP, bAP := a.LocalAddr().(*net.UDPAddr).AddrPort(), b.LocalAddr().(*net.UDPAddr).AddrPort()
			abuf, bbuf := make([]byte, 8), make([]byte, 8)
			check(t, "ReadFromUDPAddrPort and WriteToUDPAddrPort", pingPongAllocs(t, l, rounds,
				func() error {
					if _, err := a.WriteToUDPAddrPort(abuf, bAP); err != nil {
						return err
					}
					_, _, err := a.ReadFromUDPAddrPort(abuf)
					return err
				},
				func() error {
					_, from, err := b.ReadFromUDPAddrPort(bbuf)
					if err != nil {
						return err
					}
					_, err = b.WriteToUDPAddrPort(bbuf, from)
					return err
				}))
			c, err := Dial(l, "udp4", bAP.String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			check(t, "a dialed datagram conn's Read and Write", pingPongAllocs(t, l, rounds,
				func() error {
					if _, err := c.Write(abuf); err != nil {
						return err
					}
					_, err := c.Read(abuf)
					return err
				},
				func() error {
					_, from, err := b.ReadFromUDPAddrPort(bbuf)
					if err != nil {
						return err
					}
					_, err = b.WriteToUDPAddrPort(bbuf, from)
					return err
				}))
			_ = aAP
		})
	})
}
