//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The floor: not a server anyone would run, but the least a server of
// the "Hello, World!" tables can do on this kernel, so that the tables
// show how far each server is from it. A loop per CPU (GOMAXPROCS),
// each with a listener of its own on the address (SO_REUSEPORT, as
// ours with a loop per core) and an epoll of its own. On a readable
// conn: one read; for each complete request head in it, the same 130
// bytes that package httpserver sends (the Date of the current second,
// Content-Length, Content-Type, "Hello, World!"), all of a read's
// responses in one write. It parses nothing but where each head ends
// and whether it asks for "Connection: close" (then the response says
// so and the conn closes after it). Bodies are not read: the tables
// send GETs. It blocks in epoll_wait whenever its loop runs dry: a floor
// of work, not a ceiling of speed, which a server that waits better can
// pass.
func init() { servers["floor"] = serveFloor }

// serveFloor closes ln, whose address its loops' listeners then share,
// and serves until a loop fails.
func serveFloor(ln net.Listener) error {
	ap, err := netip.ParseAddrPort(ln.Addr().String())
	if err != nil || !ap.Addr().Is4() {
		return fmt.Errorf("floor: %s: not an IPv4 address and port", ln.Addr())
	}
	ln.Close()
	f, err := startFloor(ap, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	return <-f.errc
}

// floor is loops serving one address.
type floor struct {
	stop int        // an eventfd, readable once Close is called: every loop ends
	errc chan error // each loop's error, if it failed
	wg   sync.WaitGroup
}

func startFloor(ap netip.AddrPort, loops int) (*floor, error) {
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	f := &floor{stop: stop, errc: make(chan error, loops)}
	f.wg.Add(loops)
	for range loops {
		go f.loop(ap)
	}
	return f, nil
}

// Close ends the loops, and returns once each has closed what it opened.
func (f *floor) Close() {
	unix.Write(f.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	f.wg.Wait()
	unix.Close(f.stop)
}

// floorListen is a listener on ap that shares ap with the other loops'.
func floorListen(ap netip.AddrPort) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 4096); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

var (
	headEnd   = []byte("\r\n\r\n")
	connClose = []byte("\r\nconnection: close\r\n")
)

// loop serves the conns it accepts on a listener of its own on ap until
// Close, or until a system call that should not fail does.
func (f *floor) loop(ap netip.AddrPort) {
	defer f.wg.Done()
	runtime.LockOSThread()
	if err := f.serve(ap); err != nil {
		f.errc <- err
	}
}

// floorLoop is one loop's state.
type floorLoop struct {
	ln, ep     int
	rbuf, wbuf []byte
	conns      []floorConn // by fd
	r          floorResponse
}

type floorConn struct {
	open  bool
	carry []byte // the start of a head that has not ended
}

func (f *floor) serve(ap netip.AddrPort) error {
	ln, err := floorListen(ap)
	if err != nil {
		return err
	}
	defer unix.Close(ln)
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(ep)
	for _, fd := range []int{ln, f.stop} {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
			return err
		}
	}
	s := &floorLoop{ln: ln, ep: ep, rbuf: make([]byte, 64<<10)}
	defer s.closeAll()
	evs := make([]unix.EpollEvent, 256)
	for {
		n, err := unix.EpollWait(ep, evs, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		s.r.refresh()
		for _, ev := range evs[:n] {
			switch fd := int(ev.Fd); fd {
			case f.stop:
				return nil
			case ln:
				if err := s.accept(); err != nil {
					return err
				}
			default:
				s.answer(fd)
			}
		}
	}
}

// answer reads what fd has and answers each head that ends in it, in
// one write.
func (s *floorLoop) answer(fd int) {
	m, err := unix.Read(fd, s.rbuf)
	if errors.Is(err, unix.EAGAIN) {
		return
	}
	if m <= 0 {
		s.drop(fd)
		return
	}
	c := &s.conns[fd]
	data := s.rbuf[:m]
	if len(c.carry) > 0 {
		data = append(c.carry, data...)
	}
	s.wbuf = s.wbuf[:0]
	closing := false
	for !closing {
		i := bytes.Index(data, headEnd)
		if i < 0 {
			break
		}
		closing = containsFold(data[:i+2], connClose)
		s.wbuf = s.r.append(s.wbuf, closing)
		data = data[i+len(headEnd):]
	}
	c.carry = append(c.carry[:0], data...)
	if len(s.wbuf) > 0 && floorWrite(fd, s.wbuf) != nil || closing {
		s.drop(fd)
	}
}

// accept accepts what is queued on the listener and adds each conn to
// the epoll.
func (s *floorLoop) accept() error {
	for {
		c, _, err := unix.Accept4(s.ln, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.ECONNABORTED):
			continue
		case err != nil:
			return err
		}
		if c >= len(s.conns) {
			s.conns = append(s.conns, make([]floorConn, c+1-len(s.conns))...)
		}
		s.conns[c].open = true
		// As net does for every TCP conn, and so fasthttp and net/http.
		unix.SetsockoptInt(c, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if err := unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, c, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c)}); err != nil {
			return err
		}
	}
}

// drop closes fd, which also takes it out of the epoll.
func (s *floorLoop) drop(fd int) {
	unix.Close(fd)
	s.conns[fd] = floorConn{carry: s.conns[fd].carry[:0]}
}

func (s *floorLoop) closeAll() {
	for fd := range s.conns {
		if s.conns[fd].open {
			s.drop(fd)
		}
	}
}

// floorWrite writes p whole, waiting in poll if the socket's buffer is
// full (never, for the tables' responses, but a floor must not drop).
func floorWrite(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := unix.Write(fd, p)
		if errors.Is(err, unix.EAGAIN) {
			if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// containsFold is whether s holds sub, ASCII letters of either case.
func containsFold(s, sub []byte) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// floorResponse is a loop's canned response, its Date rewritten when
// the second changes.
type floorResponse struct {
	sec  int64
	head []byte // up to and with the Date's value
}

const floorTail = "\r\nContent-Length: 13\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello, World!"

func (r *floorResponse) refresh() {
	now := time.Now()
	if now.Unix() == r.sec && r.head != nil {
		return
	}
	r.sec = now.Unix()
	r.head = now.UTC().AppendFormat(append(r.head[:0], "HTTP/1.1 200 OK\r\nDate: "...), "Mon, 02 Jan 2006 15:04:05 GMT")
}

func (r *floorResponse) append(b []byte, closing bool) []byte {
	b = append(b, r.head...)
	if closing {
		b = append(b, "\r\nConnection: close"...)
	}
	return append(b, floorTail...)
}
