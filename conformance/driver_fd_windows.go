//go:build windows

package conformance

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// pair returns a connected pair of non-blocking loopback TCP sockets:
// Winsock has no socketpair.
func (f *dcFds) pair() (a, b int) {
	f.t.Helper()
	x, y, err := winsock.Pair()
	if err != nil {
		f.t.Fatalf("socket pair: %v", err)
	}
	f.open[int(x)], f.open[int(y)] = true, true
	return int(x), int(y)
}

// tcpPair is pair: a loopback TCP pair already.
func (f *dcFds) tcpPair() (a, b int) {
	f.t.Helper()
	return f.pair()
}

// dcSendUrgent sends one byte of urgent (out-of-band) data on fd.
func dcSendUrgent(t *testing.T, fd int) {
	t.Helper()
	if _, err := winsock.SendFlags(windows.Handle(fd), []byte("!"), winsock.MSG_OOB); err != nil {
		t.Fatalf("send MSG_OOB: %v", err)
	}
}

// pipe stands in for a pipe with another loopback pair, read end first:
// the Windows drivers watch sockets only (WSAPoll and AFD know nothing
// else), so the cases that watch a pipe on Unix watch a socket here.
func (f *dcFds) pipe() (r, w int) {
	f.t.Helper()
	return f.pair()
}

func dcWrite(t testing.TB, fd int, p string) {
	t.Helper()
	if err := rvWrite(fd, []byte(p)); err != nil {
		t.Fatalf("send(%d): %v", fd, err)
	}
}

// dcDrain reads fd until it would block.
func dcDrain(t *testing.T, fd int) {
	t.Helper()
	buf := make([]byte, 64<<10)
	for {
		n, err := rvRead(fd, buf)
		if rvWouldBlock(err) || err == nil && n == 0 {
			return
		}
		if err != nil {
			t.Fatalf("recv(%d): %v", fd, err)
		}
	}
}

// dcFill writes to fd until Winsock refuses more, big writes first.
func dcFill(t *testing.T, fd int) {
	t.Helper()
	for _, size := range []int{64 << 10, 1} {
		buf := make([]byte, size)
		for {
			_, err := winsock.Send(windows.Handle(fd), buf)
			if rvWouldBlock(err) {
				break
			}
			if err != nil {
				t.Fatalf("send(%d): %v", fd, err)
			}
		}
	}
}

func dcIsOpen(fd int) bool { return rvIsOpen(fd) }

// dcNeedFds: Windows has no per-process limit on handles short of about
// sixteen million, so there is nothing to raise.
func dcNeedFds(testing.TB, uint64) {}

// dcCheckWakeupAfterClose makes sure that a closed driver's Wakeup neither
// succeeds nor writes to a socket that took a handle its waker had: pairs
// opened now take freed handle values, and a write to either end would
// make the other readable.
func dcCheckWakeupAfterClose(t *testing.T, d core.Driver) {
	t.Helper()
	f := dcNewFds(t)
	var ends []int
	for range 4 {
		a, b := f.pair()
		ends = append(ends, a, b)
	}
	for range 100 {
		if err := d.Wakeup(); !errors.Is(err, core.ErrClosed) {
			t.Fatalf("Wakeup after Close: %v, want an error matching core.ErrClosed", err)
		}
	}
	fds := make([]winsock.PollFd, len(ends))
	for i, fd := range ends {
		fds[i] = winsock.PollFd{Fd: windows.Handle(fd), Events: winsock.POLLIN}
	}
	n, err := winsock.Poll(fds, 0)
	if err != nil {
		t.Fatalf("WSAPoll: %v", err)
	}
	if n > 0 {
		t.Errorf("Wakeup after Close wrote to a socket that took a handle of the closed driver's")
	}
}
