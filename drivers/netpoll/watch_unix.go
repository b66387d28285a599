//go:build unix

package netpoll

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// watch is one registration: a dup of the user's fd, handed to the runtime
// poller through an *os.File, and up to one helper per direction.
type watch struct {
	fd    int // the user's number
	idx   int // in Driver.list
	tok   driver.Token
	in    driver.Interest
	id    fdcheck.Ident // of the file at registration; the dup keeps it open
	file  *os.File      // owns dupfd
	rc    syscall.RawConn
	dupfd int
	// always: the runtime poller refused the file (regular files on
	// Linux); it is reported ready on every Wait, as poll(2) reports it.
	always bool
	// armed holds the directions whose helper waits in the runtime poller;
	// a direction leaves it when its helper reports it ready, and a Wait
	// that finds it not ready arms it again.
	armed    driver.Interest
	inAlways bool
	removed  bool
	h        [2]*helper // by direction: dirRead, dirWrite
}

const (
	dirRead = iota
	dirWrite
)

func dirInterest(dir int) driver.Interest {
	if dir == dirRead {
		return driver.Read
	}
	return driver.Write
}

// open dups fd and hands the dup to the runtime poller.
func open(fd int) (*watch, error) {
	dupfd, err := dupCloexec(fd)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	id, err := fdcheck.Identify(dupfd)
	if err != nil {
		unix.Close(dupfd)
		return nil, os.NewSyscallError("fstat", err)
	}
	fl, err := unix.FcntlInt(uintptr(dupfd), unix.F_GETFL, 0)
	if err != nil {
		unix.Close(dupfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// os.NewFile hands a descriptor to the poller only if it is
	// non-blocking. The flag belongs to the open file description, which
	// the dup shares with the user's fd, so a blocking fd is non-blocking
	// only for the duration of NewFile: the poller never reads or writes
	// the dup, so it does not need the flag afterwards.
	blocking := fl&unix.O_NONBLOCK == 0
	if blocking {
		if err := unix.SetNonblock(dupfd, true); err != nil {
			unix.Close(dupfd)
			return nil, os.NewSyscallError("fcntl", err)
		}
	}
	file := os.NewFile(uintptr(dupfd), "netpoll")
	if blocking {
		unix.SetNonblock(dupfd, false)
	}
	rc, err := file.SyscallConn()
	if err != nil {
		file.Close()
		return nil, err
	}
	w := &watch{fd: fd, id: id, file: file, rc: rc, dupfd: dupfd}
	// Deadlines fail with os.ErrNoDeadline exactly when the runtime poller
	// did not take the file.
	w.always = file.SetReadDeadline(time.Time{}) != nil
	return w, nil
}

// release stops w's helpers and closes its dup.
func release(w *watch) {
	w.removed = true
	for _, h := range w.h {
		if h != nil {
			h.stopping.Store(true)
			close(h.stop)
		}
	}
	// Closing the file wakes a helper waiting inside RawConn and returns
	// once it has left (internal/poll's FD.Close waits for its references).
	w.file.Close()
	for dir, h := range w.h {
		if h != nil {
			<-h.done
			w.h[dir] = nil
		}
	}
}

// alive reports whether w's fd still names the file registered.
func alive(w *watch) bool {
	id, err := fdcheck.Identify(w.fd)
	if err != nil {
		return err != unix.EBADF
	}
	return id == w.id
}

// helper is the goroutine that waits, through the runtime poller, for one
// direction of one watch to become ready, reports it, and waits to be
// re-armed. It is started the first time its direction is found not ready,
// so a direction that stays ready (a writable socket) never needs one.
type helper struct {
	d        *Driver
	w        *watch
	dir      int
	gen      uint64
	rearm    chan struct{} // buffer of one: Wait found the direction not ready again
	stop     chan struct{} // closed when the helper must exit
	done     chan struct{} // closed by the helper on exit
	stopping atomic.Bool   // read inside the RawConn callback
	pfd      [1]unix.PollFd
	ready    func(fd uintptr) bool // the RawConn callback, made once
}

func startHelper(d *Driver, w *watch, dir int, gen uint64) *helper {
	h := &helper{
		d:     d,
		w:     w,
		dir:   dir,
		gen:   gen,
		rearm: make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	var events pollEvent = unix.POLLIN
	if dir == dirWrite {
		events = unix.POLLOUT
	}
	h.ready = func(fd uintptr) bool {
		if h.stopping.Load() {
			return true
		}
		// The runtime's poller is edge-triggered; poll(2) with a zero
		// timeout says whether the fd is ready now, so a helper re-armed
		// on an fd that stayed ready reports it at once.
		h.pfd[0] = unix.PollFd{Fd: int32(fd), Events: events}
		n, err := pollNow(h.pfd[:])
		return err != nil || n > 0
	}
	go h.run()
	return h
}

func (h *helper) run() {
	defer close(h.done)
	for {
		var err error
		if h.dir == dirRead {
			err = h.w.rc.Read(h.ready)
		} else {
			err = h.w.rc.Write(h.ready)
		}
		if h.stopping.Load() {
			return
		}
		// Any other error means the runtime would not wait for this file;
		// the loop then treats it as always ready rather than spin here.
		h.d.post(h, err != nil)
		select {
		case <-h.rearm:
		case <-h.stop:
			return
		}
	}
}

// stopHelper stops the helper of one direction and waits for it to exit,
// leaving the dup open for the other direction.
func stopHelper(w *watch, dir int) {
	h := w.h[dir]
	w.h[dir] = nil
	h.stopping.Store(true)
	close(h.stop)
	// A deadline in the past wakes a wait inside RawConn.
	setDeadline(w.file, dir, time.Unix(1, 0))
	<-h.done
	setDeadline(w.file, dir, time.Time{})
}

func setDeadline(f *os.File, dir int, t time.Time) {
	if dir == dirRead {
		f.SetReadDeadline(t)
	} else {
		f.SetWriteDeadline(t)
	}
}

// pollNow is poll(2) with a zero timeout.
func pollNow(pfds []unix.PollFd) (int, error) {
	for {
		n, err := unix.Poll(pfds, 0)
		if err != unix.EINTR {
			return n, err
		}
	}
}
