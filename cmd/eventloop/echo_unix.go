//go:build unix

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// echoCmd serves TCP echo on ADDR until SIGINT or SIGTERM: one fiber per
// connection, written in blocking style, suspending on the loop whenever
// its socket would block.
func echoCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	driver := fs.String("driver", "", "driver (default: what eventloop.New picks)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one address, such as 127.0.0.1:7007")
	}
	var l *core.Loop
	var err error
	if *driver == "" {
		l, err = eventloop.New()
	} else {
		l, err = eventloop.NewWithDriver(*driver)
	}
	if err != nil {
		return err
	}
	srv, err := listenEcho(l, fs.Arg(0))
	if err != nil {
		return errors.Join(err, l.Close())
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if _, err := l.OnSignal(sig, func(core.CallbackID, os.Signal) { srv.stop() }); err != nil {
			srv.stop()
			return errors.Join(err, l.Close())
		}
	}
	fmt.Fprintf(stdout, "echo: listening on %s, driver %s; SIGINT or SIGTERM stops\n", srv.addr, l.Driver().Name())
	err = l.Run()
	srv.stop()
	// Close ends the connections' fibers: their Suspend returns
	// ErrLoopClosed and each closes its socket.
	return errors.Join(err, l.Close())
}

// echoServer is a listening socket served by a loop.
type echoServer struct {
	l      *core.Loop
	fd     int
	accept core.CallbackID
	addr   net.Addr
	done   bool
}

// listenEcho listens on addr and accepts on l; each connection is served
// in a fiber of its own.
func listenEcho(l *core.Loop, addr string) (*echoServer, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	fd, err := listenTCP(ta)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &echoServer{l: l, fd: fd}
	if sa, err := unix.Getsockname(fd); err == nil {
		s.addr = tcpAddr(sa)
	}
	s.accept = l.OnReadable(fd, func(core.CallbackID, int) { s.acceptAll() })
	return s, nil
}

func listenTCP(ta *net.TCPAddr) (int, error) {
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: ta.Port})
	if ip4 := ta.IP.To4(); ip4 != nil || ta.IP == nil {
		in4 := &unix.SockaddrInet4{Port: ta.Port}
		copy(in4.Addr[:], ip4)
		family, sa = unix.AF_INET, in4
	} else {
		copy(sa.(*unix.SockaddrInet6).Addr[:], ta.IP.To16())
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	unix.CloseOnExec(fd)
	err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err == nil {
		err = os.NewSyscallError("bind", unix.Bind(fd, sa))
	}
	if err == nil {
		err = os.NewSyscallError("listen", unix.Listen(fd, unix.SOMAXCONN))
	}
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func tcpAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}

// acceptAll takes every pending connection: the watcher is level-triggered,
// so one left behind would only wait for the next tick.
func (s *echoServer) acceptAll() {
	for !s.done {
		fd, _, err := unix.Accept(s.fd)
		if err != nil {
			// EAGAIN: none left. Anything else (ECONNABORTED, EMFILE) is
			// this connection's problem or passes; the listener goes on.
			return
		}
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(fd)
			continue
		}
		s.l.Defer(func(core.CallbackID) { serveEcho(s.l, fd) })
	}
}

// stop stops accepting and closes the listening socket; Run returns once
// the connections in progress end (or Close ends them).
func (s *echoServer) stop() {
	if s.done {
		return
	}
	s.done = true
	s.l.Cancel(s.accept)
	unix.Close(s.fd)
	s.l.Stop()
}

// serveEcho writes back what it reads until the peer closes, in blocking
// style: the fiber suspends while the socket would block.
func serveEcho(l *core.Loop, fd int) {
	defer unix.Close(fd)
	buf := make([]byte, 16<<10) // per connection: ten thousand of them hold 160 MiB
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EAGAIN {
			if waitFD(l, fd, core.Read) != nil {
				return
			}
			continue
		}
		if n <= 0 || err != nil {
			return
		}
		for p := buf[:n]; len(p) > 0; {
			m, err := unix.Write(fd, p)
			if err == unix.EAGAIN {
				if waitFD(l, fd, core.Write) != nil {
					return
				}
				continue
			}
			if err != nil {
				return
			}
			p = p[m:]
		}
	}
}

// waitFD suspends the calling fiber until fd is ready for in. The watcher is
// cancelled before waitFD returns, so the caller may close fd.
func waitFD(l *core.Loop, fd int, in core.Interest) error {
	s := l.Suspension()
	wake := func(core.CallbackID, int) { s.Resume(nil) }
	var id core.CallbackID
	if in == core.Write {
		id = l.OnWritable(fd, wake)
	} else {
		id = l.OnReadable(fd, wake)
	}
	_, err := s.Suspend()
	l.Cancel(id)
	return err
}
