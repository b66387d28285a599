//go:build linux && cgo && eventloop_libkqueue

package kqueue_test

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"golang.org/x/sys/unix"
)

// EINTR is not an error and does not cut a timed Wait short: the Go
// runtime's preemption signal (SIGURG) interrupts kevent over libkqueue in
// most waits under load (KQUEUE.md, bug 11). The signals go to the very
// thread blocked in kevent.
func TestEINTRIsRetried(t *testing.T) {
	eachWaker(t, func(t *testing.T, d *kqueue.Driver) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		pid, tid := unix.Getpid(), unix.Gettid()
		stop := make(chan struct{})
		done := make(chan int)
		go func() {
			sent := 0
			for {
				select {
				case <-stop:
					done <- sent
					return
				default:
				}
				if unix.Tgkill(pid, tid, unix.SIGURG) == nil {
					sent++
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
		ev := make([]core.Event, 8)
		const timeout = 30 * time.Millisecond
		for range 5 {
			start := time.Now()
			n, err := d.Wait(ev, timeout)
			took := time.Since(start)
			if err != nil || n != 0 {
				t.Errorf("Wait(%v) under SIGURG: n=%d err=%v", timeout, n, err)
			}
			if took < timeout {
				t.Errorf("Wait(%v) under SIGURG returned after %v", timeout, took)
			}
		}
		close(stop)
		if sent := <-done; sent == 0 {
			t.Fatal("no signal sent")
		}
	})
}

// A child exec'd while a driver is open inherits none of the kqueue's
// pipe: libkqueue makes it without O_CLOEXEC, and a child holding its write
// end would keep libkqueue from freeing the kqueue, and Close waiting.
func TestChildDoesNotHoldTheKqueue(t *testing.T) {
	if os.Getenv("EVENTLOOP_KQUEUE_CHILD") != "" {
		t.Skip("the child of this test")
	}
	d, err := kqueue.New()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "EVENTLOOP_KQUEUE_CHILD=1")
	if err := child.Start(); err != nil {
		d.Close()
		t.Fatalf("start child: %v", err)
	}
	defer func() {
		child.Process.Kill()
		child.Wait()
	}()
	start := time.Now()
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("Close took %v with a child alive: the child holds the kqueue's pipe", took)
	}
}
