//go:build windows

package waker

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// kinds: Open's loopback pair is the only Waker over a socket here
// (OpenPipe fails: TestOpenPipeUnsupported).
func kinds(t *testing.T) map[string]func(*Waker) error {
	return map[string]func(*Waker) error{"Open": (*Waker).Open}
}

func readable(t *testing.T, fd int) bool {
	t.Helper()
	p := []winsock.PollFd{{Fd: windows.Handle(fd), Events: winsock.POLLIN}}
	n, err := winsock.Poll(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// readOnce reads what the socket holds, in one recv, and returns how many
// bytes.
func readOnce(t *testing.T, fd int) int {
	var buf [16]byte
	n, _ := winsock.Recv(windows.Handle(fd), buf[:])
	return n
}

// unwritable returns a socket that a wakeup's send fails on (shut down
// for sending), and the error.
func unwritable(t *testing.T) (int, error) {
	a, b, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { winsock.Close(a); winsock.Close(b) })
	if err := windows.Shutdown(a, windows.SHUT_WR); err != nil {
		t.Fatal(err)
	}
	return int(a), windows.WSAESHUTDOWN
}

// There is no pipe that WSAPoll can watch: OpenPipe says so.
func TestOpenPipeUnsupported(t *testing.T) {
	var w Waker
	if err := w.OpenPipe(); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("OpenPipe: %v, want an error matching errors.ErrUnsupported", err)
	}
}

// A send that would block is a wakeup only if the read end has something
// to read (a full buffer): Wine answers WSAEWOULDBLOCK now and then with a
// byte or two in the buffer, and taking that for a wakeup left the pending
// flag set with nothing to read: every later Wakeup coalesced into it, and
// the loop slept on. Here the write end is another, full socket, so every
// send would block while the read end stays empty. Wine moves loopback
// bytes to the peer in its own time, so the send that found the buffer
// full may find room a moment later: such a try proves nothing, and is
// made again with a fresh waker (its Wakeup went out, and set the flag).
func TestWouldBlockWithNothingToReadIsNoWakeup(t *testing.T) {
	for try := 0; try < 20; try++ {
		if wouldBlockNoWakeup(t) {
			if try > 0 {
				t.Logf("%d tries found room in the buffer again", try)
			}
			return
		}
	}
	t.Fatal("in 20 tries, Wakeup never failed with WSAEWOULDBLOCK on a socket whose buffer was just found full: it takes a send that would block for a wakeup, or Wine always found room")
}

// wouldBlockNoWakeup is one try of the test above; false if the send
// did not block.
func wouldBlockNoWakeup(t *testing.T) bool {
	t.Helper()
	var w Waker
	if err := w.Open(); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	x, y, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer winsock.Close(x)
	defer winsock.Close(y)
	buf := make([]byte, 64<<10)
	for _, size := range []int{len(buf), 1} {
		for {
			if _, err := winsock.Send(x, buf[:size]); err != nil {
				break
			}
		}
	}
	good := w.w
	w.w = int(x)
	err = w.Wakeup()
	if err == nil {
		return false
	}
	if !errors.Is(err, windows.WSAEWOULDBLOCK) {
		t.Fatalf("Wakeup whose send would block, nothing to read: %v, want an error matching WSAEWOULDBLOCK", err)
	}
	w.w = good
	if err := w.Wakeup(); err != nil || !readable(t, w.Fd()) {
		t.Fatalf("the Wakeup after it: %v, readable %v; want nil, true (the pending flag was left set)", err, readable(t, w.Fd()))
	}
	return true
}
