//go:build windows

package stream

import (
	"errors"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// WSAPoll's side of the seam that stream.go and wait.go are written
// against: Winsock's poll(2), which watches sockets and nothing else.
type pollFd = winsock.PollFd

const (
	// POLLRDNORM, not Winsock's POLLIN, which adds POLLRDBAND: urgent data
	// not inline, which a read does not return, would have the socket
	// reported readable, and the loop spin, until read with MSG_OOB.
	pollIn   = winsock.POLLRDNORM
	pollOut  = winsock.POLLOUT
	pollHup  = winsock.POLLHUP
	pollErr  = winsock.POLLERR
	pollNval = winsock.POLLNVAL
	pollCall = "WSAPoll"
)

var (
	// WSAPoll is never interrupted: nothing compares equal to this.
	errInterrupted = errors.New("stream: interrupted")
	errBadFd       = windows.WSAENOTSOCK
)

func poll(p []pollFd, ms int) (int, error) { return winsock.Poll(p, ms) }

func setFd(p *pollFd, fd int) { p.Fd = windows.Handle(fd) }

func ignore(p *pollFd) { p.Fd, p.Events, p.Revents = winsock.Ignored, 0, 0 }

// revents reads nothing from an ignored entry: Wine 8.0's WSAPoll skips it
// (it neither counts it nor returns early for it, as Windows documents)
// but still writes POLLNVAL into its revents, which would otherwise be
// taken for a closed socket.
func revents(p *pollFd) uint32 {
	if p.Fd == winsock.Ignored {
		return 0
	}
	return uint32(uint16(p.Revents))
}

// probe refuses, at Register, a handle WSAPoll could only answer with
// POLLNVAL: one that is not a socket, or not open at all
// (winsock.CheckSocket says which).
func probe(fd int) error { return winsock.CheckSocket(windows.Handle(fd)) }
