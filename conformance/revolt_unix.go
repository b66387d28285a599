//go:build unix

package conformance

import (
	"errors"
	"fmt"
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

// rvCanRaise: a test can send itself these signals.
const rvCanRaise = true

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

// rvRead reads from fd.
func rvRead(fd int, p []byte) (int, error) { return unix.Read(fd, p) }

// rvWouldBlock reports whether a read or write failed only because it
// would have blocked (or was interrupted): a non-blocking fd's "try again".
func rvWouldBlock(err error) bool { return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) }

// rvErrNotOpen is what the system says of an fd that is not open.
var rvErrNotOpen error = unix.EBADF

// rvIsOpen reports whether fd refers to an open file.
func rvIsOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

// rvWrite writes p to fd, making its peer readable.
func rvWrite(fd int, p []byte) error {
	_, err := unix.Write(fd, p)
	return err
}

// faultCloseAndReuse closes fd behind the loop's back and makes a new
// connected socket whose number is fd (faultSocketAt), and returns its peer.
func faultCloseAndReuse(fd int) (peer int, err error) {
	if err := rvClose(fd); err != nil {
		return -1, fmt.Errorf("close: %w", err)
	}
	return faultSocketAt(fd)
}

// faultSocketAt makes a new connected socket whose number is fd, which the
// caller has just closed, and returns its peer. The kernel hands out the
// lowest free number, so usually one end lands there by itself; otherwise
// F_DUPFD (lowest free number at or above fd, portable where dup3 is not)
// puts one there.
func faultSocketAt(fd int) (peer int, err error) {
	x, y, err := rvRawSocketPair()
	if err != nil {
		return -1, err
	}
	switch fd {
	case x:
		return y, nil
	case y:
		return x, nil
	}
	n, err := unix.FcntlInt(uintptr(x), unix.F_DUPFD, fd)
	_ = unix.Close(x)
	if err == nil && n != fd {
		_ = unix.Close(n)
		err = fmt.Errorf("number %d: %w", fd, errNumberTaken)
	}
	if err != nil {
		_ = unix.Close(y)
		return -1, errors.Join(errors.New("making a socket at the closed fd's number"), err)
	}
	return y, nil
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
