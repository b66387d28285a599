//go:build unix

package conformance

import (
	"errors"
	"syscall"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// pair returns a connected pair of non-blocking stream sockets.
func (f *dcFds) pair() (a, b int) {
	f.t.Helper()
	var p [2]int
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		p = [2]int{fds[0], fds[1]}
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		f.t.Fatalf("socketpair: %v", err)
	}
	f.adopt(p)
	return p[0], p[1]
}

// tcpPair returns a connected pair of non-blocking TCP sockets over the
// IPv4 loopback, for what only TCP has (urgent data).
func (f *dcFds) tcpPair() (a, b int) {
	f.t.Helper()
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		f.t.Fatalf("socket: %v", err)
	}
	defer unix.Close(ln)
	if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		f.t.Fatalf("bind 127.0.0.1: %v", err)
	}
	if err := unix.Listen(ln, 1); err != nil {
		f.t.Fatalf("listen: %v", err)
	}
	sa, err := unix.Getsockname(ln)
	if err != nil {
		f.t.Fatalf("getsockname: %v", err)
	}
	var p [2]int
	syscall.ForkLock.RLock()
	p[0], err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(p[0])
		if err = unix.Connect(p[0], sa); err == nil {
			if p[1], _, err = unix.Accept(ln); err == nil {
				unix.CloseOnExec(p[1])
			}
		}
		if err != nil {
			unix.Close(p[0])
		}
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		f.t.Fatalf("a loopback TCP pair: %v", err)
	}
	f.adopt(p)
	return p[0], p[1]
}

// dcSendUrgent sends one byte of urgent (out-of-band) data on fd.
func dcSendUrgent(t *testing.T, fd int) {
	t.Helper()
	if err := unix.Sendto(fd, []byte("!"), unix.MSG_OOB, nil); err != nil {
		t.Fatalf("send MSG_OOB: %v", err)
	}
}

// pipe returns the read and write ends of a non-blocking pipe.
func (f *dcFds) pipe() (r, w int) {
	f.t.Helper()
	var p [2]int
	syscall.ForkLock.RLock()
	err := unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		f.t.Fatalf("pipe: %v", err)
	}
	f.adopt(p)
	return p[0], p[1]
}

func (f *dcFds) adopt(p [2]int) {
	f.t.Helper()
	for _, fd := range p {
		f.open[fd] = true
		if err := unix.SetNonblock(fd, true); err != nil {
			f.t.Fatalf("set non-blocking: %v", err)
		}
	}
}

// dupAbove duplicates fd onto the lowest free number >= min.
func (f *dcFds) dupAbove(fd, min int) int {
	f.t.Helper()
	// F_DUPFD_CLOEXEC is missing on AIX; ForkLock covers the gap.
	syscall.ForkLock.RLock()
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD, min)
	if err == nil {
		unix.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		f.t.Fatalf("fcntl(F_DUPFD, %d): %v", min, err)
	}
	f.open[nfd] = true
	return nfd
}

func dcWrite(t testing.TB, fd int, p string) {
	t.Helper()
	if _, err := unix.Write(fd, []byte(p)); err != nil {
		t.Fatalf("write(%d): %v", fd, err)
	}
}

// dcDrain reads fd until it would block.
func dcDrain(t *testing.T, fd int) {
	t.Helper()
	buf := make([]byte, 64<<10)
	for {
		_, err := unix.Read(fd, buf)
		if err == unix.EAGAIN {
			return
		}
		if err != nil {
			t.Fatalf("read(%d): %v", fd, err)
		}
	}
}

// dcFill writes to fd until the kernel refuses more, so that fd is no
// longer writable. Big writes first, then single bytes: a big write can be
// refused while some room is left.
func dcFill(t *testing.T, fd int) {
	t.Helper()
	for _, size := range []int{64 << 10, 1} {
		buf := make([]byte, size)
		for {
			_, err := unix.Write(fd, buf)
			if err == unix.EAGAIN {
				break
			}
			if err != nil {
				t.Fatalf("write(%d): %v", fd, err)
			}
		}
	}
}

// dcIsOpen reports whether fd refers to an open file.
func dcIsOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

// dcNeedFds raises the soft RLIMIT_NOFILE to at least n for the rest of the
// case, and restores it after. The Go runtime already raises the soft limit
// to the hard one at startup on most systems; this is for the others. A hard
// limit below n is the machine's limit, not the driver's: the case is
// skipped, saying so.
func dcNeedFds(t testing.TB, n uint64) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	if uint64(lim.Cur) >= n {
		return
	}
	if uint64(lim.Max) < n {
		t.Skipf("needs %d fds; the hard RLIMIT_NOFILE of this machine is %d", n, lim.Max)
	}
	old := lim
	dcSetLimit(&lim.Cur, n)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("setrlimit(RLIMIT_NOFILE, %d): %v", n, err)
	}
	t.Cleanup(func() {
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring RLIMIT_NOFILE: %v", err)
		}
	})
}

// dcSetLimit sets an rlimit field, an int64 on some systems and a uint64
// on others.
func dcSetLimit[T int64 | uint64](field *T, n uint64) { *field = T(n) }

// dcCheckWakeupAfterClose makes sure that a closed driver's Wakeup neither
// succeeds nor writes to a file that reused the number of its old wakeup
// fd: socketpairs opened now take the lowest free numbers, and a write to
// either end would make the other readable.
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
	fds := make([]unix.PollFd, len(ends))
	for i, fd := range ends {
		fds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	n, err := unix.Poll(fds, 0)
	if err != nil && err != unix.EINTR {
		t.Fatalf("poll: %v", err)
	}
	if n > 0 {
		t.Errorf("Wakeup after Close wrote to an fd that reused the number of the closed driver's")
	}
}
