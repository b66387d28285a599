//go:build unix

package eventloop_test

import (
	"fmt"
	"os"
	"syscall"

	"github.com/revoltgo/eventloop"
	"golang.org/x/sys/unix"
)

// OnReadable runs its callback in every tick in which the fd is readable
// (level-triggered) until cancelled.
func ExampleLoop_OnReadable() {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		panic(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	_ = unix.SetNonblock(fds[0], true)

	l, _ := eventloop.New()
	defer l.Close()
	l.OnReadable(fds[0], func(id eventloop.CallbackID, fd int) {
		buf := make([]byte, 64)
		n, _ := unix.Read(fd, buf)
		fmt.Printf("read %q\n", buf[:n])
		l.Cancel(id)
	})
	l.Defer(func(eventloop.CallbackID) { _, _ = unix.Write(fds[1], []byte("ping")) })
	_ = l.Run()
	// Output: read "ping"
}

// OnSignal watches a signal through os/signal (never resetting what the
// rest of the program set); the watcher keeps the loop running until
// cancelled.
func ExampleLoop_OnSignal() {
	l, _ := eventloop.New()
	defer l.Close()
	_, err := l.OnSignal(syscall.SIGUSR1, func(id eventloop.CallbackID, sig os.Signal) {
		fmt.Println("got", sig)
		l.Cancel(id)
	})
	if err != nil {
		panic(err)
	}
	// The watcher is active from the next tick, as this defer is.
	l.Defer(func(eventloop.CallbackID) { _ = syscall.Kill(syscall.Getpid(), syscall.SIGUSR1) })
	_ = l.Run()
	// Output: got user defined signal 1
}
