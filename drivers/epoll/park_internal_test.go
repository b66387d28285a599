//go:build linux

package epoll

import (
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// parkReadable reports whether the park instance, which the runtime's
// netpoller watches, is readable: whether the runtime would be woken.
func parkReadable(t *testing.T, d *Driver) bool {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(d.park.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// The park instance watches the epoll instance only while a Wait is
// parked: the events of a loop that runs do not wake the runtime, before
// the first park or after one.
func TestParkDisarmedWhileRunning(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // a loop per P: Wait parks
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.park == nil {
		t.Fatal("New made no park instance")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := d.Register(fds[0], 1, driver.Read); err != nil {
		t.Fatal(err)
	}
	events := make([]driver.Event, 8)
	send := func() {
		if _, err := unix.Write(fds[1], []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	drain := func() {
		var b [16]byte
		for {
			if _, err := unix.Read(fds[0], b[:]); err != nil {
				return
			}
		}
	}
	send()
	if parkReadable(t, d) {
		t.Error("the park instance is readable for an event before any Wait parked")
	}
	if n, _ := d.Wait(events, time.Second); n != 1 {
		t.Fatalf("Wait = %d events; want 1", n)
	}
	drain()
	// A Wait that parks, woken by an event.
	go func() {
		time.Sleep(20 * time.Millisecond)
		send()
	}()
	if n, _ := d.Wait(events, -1); n != 1 {
		t.Fatalf("Wait(-1) = %d events; want 1", n)
	}
	drain()
	send()
	if parkReadable(t, d) {
		t.Error("the park instance is readable for an event after a parked Wait returned")
	}
}
