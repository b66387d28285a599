//go:build unix

package conformance

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The signals the Revolt cases raise, as upstream: nothing else in a test
// process uses them, unlike SIGINT/SIGTERM, which a test runner may be
// listening for.
var (
	rvSig1 os.Signal = syscall.SIGUSR1
	rvSig2 os.Signal = syscall.SIGUSR2
)

// rvRaise sends sig to this process. It may be called from a callback.
func rvRaise(sig os.Signal) error {
	return syscall.Kill(os.Getpid(), sig.(syscall.Signal))
}

// rvGuardSignals keeps SIGUSR1 and SIGUSR2 subscribed for the rest of the case,
// so that a signal raised while the loop under test has (wrongly) stopped
// watching it fails that case instead of killing the whole test binary with
// the signal's default action.
func rvGuardSignals(t *testing.T) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, rvSig1, rvSig2)
	t.Cleanup(func() { signal.Stop(ch) })
}

// rvRawSocketPair returns a connected pair of stream sockets that the caller
// closes (with rvClose) once the loop no longer watches them.
func rvRawSocketPair() (a, b int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	return fds[0], fds[1], nil
}

func rvClose(fd int) error { return unix.Close(fd) }

// rvWrite writes p to fd, making its peer readable.
func rvWrite(fd int, p []byte) error {
	_, err := unix.Write(fd, p)
	return err
}

// rvRefusedConnect starts a non-blocking TCP connect that the kernel refuses:
// the port is bound (so nobody else can take it) but not listening. The
// connecting fd is closed when the case ends. Upstream uses the fixed port 1
// and skips when something answers; a bound, silent port needs neither.
func rvRefusedConnect(t *testing.T) int {
	t.Helper()
	holder, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("no IPv4 sockets: %v", err)
	}
	t.Cleanup(func() { _ = rvClose(holder) })
	if err := unix.Bind(holder, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skipf("cannot bind to 127.0.0.1: %v", err)
	}
	sa, err := unix.Getsockname(holder)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rvClose(fd) })
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	// Depending on the kernel the refusal shows at once or after the
	// handshake; either way the fd ends up in error state.
	err = unix.Connect(fd, sa)
	switch {
	case err == nil:
		t.Skip("connecting to a bound, non-listening port succeeded")
	case errors.Is(err, unix.EINPROGRESS), errors.Is(err, unix.ECONNREFUSED):
	default:
		t.Skipf("connect: %v", err)
	}
	return fd
}
