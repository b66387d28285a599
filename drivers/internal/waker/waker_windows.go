//go:build windows

package waker

import (
	"errors"
	"fmt"

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

// write adds one wakeup. A full socket buffer (WSAEWOULDBLOCK) is readable
// already, which is all a wakeup needs.
func (w *Waker) write() error {
	one := [1]byte{1}
	_, err := winsock.Send(windows.Handle(w.w), one[:])
	if err != nil && !errors.Is(err, windows.WSAEWOULDBLOCK) {
		return err
	}
	return nil
}

func readFd(fd int, b []byte) (int, error) { return winsock.Recv(windows.Handle(fd), b) }

func closeFd(fd int) error { return winsock.Close(windows.Handle(fd)) }
