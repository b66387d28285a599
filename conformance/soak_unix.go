//go:build unix

package conformance

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// soakSocketpair returns a connected pair of non-blocking stream sockets,
// close-on-exec under ForkLock so that a concurrent fork in the host test
// binary cannot inherit them and keep the soak's fd count up.
func soakSocketpair() (a, b int, err error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	for _, fd := range fds {
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
			return -1, -1, os.NewSyscallError("fcntl", err)
		}
	}
	return fds[0], fds[1], nil
}

func soakClose(fd int) error { return unix.Close(fd) }

// soakRead and soakWrite report a full socket buffer (or an empty one) as
// soakErrAgain: level-triggered readiness may be stale by the time the
// callback reads, when another callback of the same tick got there first.
func soakRead(fd int, p []byte) (int, error) {
	n, err := unix.Read(fd, p)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
		return 0, soakErrAgain
	}
	return n, err
}

func soakWrite(fd int, p []byte) (int, error) {
	n, err := unix.Write(fd, p)
	if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
		return 0, soakErrAgain
	}
	return n, err
}

// soakOpenFDs counts the process's open descriptors: /proc/self/fd where
// there is one (its own directory fd is counted every time, so it cancels
// out), else a probe of every number below the soft limit with F_GETFD,
// which fails with EBADF exactly on the free ones.
func soakOpenFDs() (int, error) {
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		return len(ents), nil
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0, os.NewSyscallError("getrlimit", err)
	}
	// A soft limit of "unlimited" (darwin allows it) would make the probe
	// endless; new descriptors take the lowest free numbers, so a leak
	// shows well below this.
	// (Cur is signed on FreeBSD and DragonFly, whose "unlimited" is the
	// largest int64, so the conversion keeps it large.)
	limit := min(uint64(rl.Cur), 1<<16)
	n := 0
	for fd := 0; uint64(fd) < limit; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			n++
		}
	}
	return n, nil
}
