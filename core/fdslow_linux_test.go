package core_test

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/epoll"
)

// An FD makes its fdSlow only for what needs it: a wait, a read and a
// Close with nobody else in make none, so an idle connection does not pay
// for it; a deadline makes it.
func TestFDSlowOnlyWhenNeeded(t *testing.T) {
	for _, deadline := range []bool{false, true} {
		drv, err := epoll.New()
		if err != nil {
			t.Fatal(err)
		}
		l := core.New(drv)
		var fds [2]int
		if err := syscall.Pipe2(fds[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		p := new(core.FD)
		if err := p.Init(l, fds[0], net.ErrClosed); err != nil {
			t.Fatal(err)
		}
		var waitErr, closeErr error
		var waited, closed bool
		l.Defer(func(core.CallbackID) {
			if deadline {
				p.SetDeadline(core.Read, time.Now().Add(time.Hour))
			}
			time.AfterFunc(10*time.Millisecond, func() { syscall.Write(fds[1], []byte{1}) })
			if waitErr = p.Lock(core.Read); waitErr == nil {
				waitErr = p.Wait(core.Read)
				p.Unlock(core.Read)
			}
			waited = core.FDHasSlow(p)
			closeErr = p.Close()
			closed = core.FDHasSlow(p)
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		l.Close()
		syscall.Close(fds[1])
		if waitErr != nil || closeErr != nil {
			t.Fatalf("deadline %v: Wait: %v, Close: %v", deadline, waitErr, closeErr)
		}
		if waited != deadline || closed != deadline {
			t.Errorf("deadline %v: the FD made its slow record: after the wait %v, after Close %v; want %v", deadline, waited, closed, deadline)
		}
	}
}
