//go:build windows

package waker

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

var errInterrupted = errors.New("interrupted") // Winsock calls are never interrupted

// Open makes the waker WSAPoll can watch: a connected loopback pair of
// non-blocking TCP sockets (winsock.Pair). WSAPoll watches sockets and
// nothing else, so neither an event object nor a pipe would do.
func (w *Waker) Open() error {
	a, b, err := winsock.Pair()
	if err != nil {
		return err
	}
	w.r, w.w = int(a), int(b)
	return nil
}

// OpenPipe fails on Windows: there is no pipe WSAPoll could watch.
func (w *Waker) OpenPipe() error {
	return fmt.Errorf("waker: no pipe that WSAPoll can watch on Windows: %w", errors.ErrUnsupported)
}

// write adds one wakeup. WSAEWOULDBLOCK means a full socket buffer on
// Windows, which is readable already, all a wakeup needs; but Wine also
// answers a send so now and then with a byte or two in the buffer, and
// taking that for a wakeup loses it (the pending flag stays set, so no
// later Wakeup writes, and the loop sleeps on). So a send that would block
// counts only if the read end is readable; else it is tried again, a
// bounded number of times, yielding in between.
func (w *Waker) write() error {
	one := [1]byte{1}
	var err error
	for range writeTries {
		if _, err = winsock.Send(windows.Handle(w.w), one[:]); !errors.Is(err, windows.WSAEWOULDBLOCK) {
			return err
		}
		if hasInput(w.r) {
			return nil
		}
		runtime.Gosched()
	}
	return fmt.Errorf("waker: send would block %d times and nothing is left to read: %w", writeTries, err)
}

const writeTries = 100

// hasInput reports whether the socket fd has something to read, without
// waiting.
func hasInput(fd int) bool {
	p := []winsock.PollFd{{Fd: windows.Handle(fd), Events: winsock.POLLIN}}
	n, err := winsock.Poll(p, 0)
	return err == nil && n == 1 && p[0].Revents&winsock.POLLIN != 0
}

func readFd(fd int, b []byte) (int, error) { return winsock.Recv(windows.Handle(fd), b) }

func closeFd(fd int) error { return winsock.Close(windows.Handle(fd)) }
