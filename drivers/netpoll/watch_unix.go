//go:build unix && !aix

package netpoll

import (
	"os"
	"sync"
	"syscall"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// watch is one registration: a dup of the user's fd, handed to the runtime
// poller through an *os.File, and up to one helper goroutine per direction.
type watch struct {
	fd        int // the user's number
	forgotten bool
	tok       driver.Token
	in        driver.Interest
	file      *os.File // owns the dup
	rc        syscall.RawConn
	rearm     [2]chan struct{} // by direction (0 Read, 1 Write): made when its helper starts, closed to stop it
	helpers   sync.WaitGroup
}

// open dups fd and hands the dup to the runtime poller.
func open(fd int) (*watch, error) {
	// Close-on-exec atomically, so that a concurrent fork and exec cannot
	// inherit the dup.
	dupfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	// os.NewFile hands only a non-blocking fd to the poller. The flag is
	// the open file description's, shared with the user's fd, so a blocking
	// fd is non-blocking only during NewFile: the poller never reads or
	// writes the dup, so it does not need the flag afterwards.
	fl, err := unix.FcntlInt(uintptr(dupfd), unix.F_GETFL, 0)
	blocking := err == nil && fl&unix.O_NONBLOCK == 0
	if blocking {
		err = unix.SetNonblock(dupfd, true)
	}
	if err != nil {
		unix.Close(dupfd)
		return nil, os.NewSyscallError("fcntl", err)
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
	return &watch{fd: fd, file: file, rc: rc}, nil
}

// arm makes a helper wait for each direction in idle, which a scan found
// not ready: it starts one, or re-arms one that may have parked.
func (w *watch) arm(signal chan struct{}, idle driver.Interest) {
	for dir, rearm := range w.rearm {
		switch {
		case idle&(driver.Read<<dir) == 0:
		case rearm == nil:
			rearm = make(chan struct{}, 1)
			w.rearm[dir] = rearm
			w.helpers.Go(func() { w.help(dir, rearm, signal) })
		default:
			// A token left for a helper still waiting costs it one more
			// poll(2) when it fires, never a lost wakeup.
			select {
			case rearm <- struct{}{}:
			default:
			}
		}
	}
}

// help is the helper of one direction: it waits in the runtime's poller
// for the direction to become ready, wakes a blocked Wait, and parks until
// a scan finds the direction not ready and re-arms it. Parking, rather than
// waiting again at once, keeps it from spinning on a direction that stays
// ready where the runtime's poller is level-triggered (event ports).
func (w *watch) help(dir int, rearm, signal chan struct{}) {
	pfd := []unix.PollFd{{Events: unix.POLLIN}}
	wait := w.rc.Read
	if dir == 1 {
		pfd[0].Events, wait = unix.POLLOUT, w.rc.Write
	}
	// Called first, then on each readiness the runtime sees, which may be
	// stale by now: poll(2) says whether the dup is ready now.
	ready := func(fd uintptr) bool {
		pfd[0].Fd = int32(fd)
		n, err := pollNow(pfd)
		return err != nil || n > 0
	}
	// An error comes from release closing the file, or says the runtime's
	// poller refused it: it refuses files poll(2) has always ready (regular
	// files on Linux), which need no helper; any other is then seen by the
	// next Wait that something else ends.
	for wait(ready) == nil {
		notify(signal)
		if _, ok := <-rearm; !ok {
			return
		}
	}
}

// release stops w's helpers, closes its dup, and returns once the helpers
// have exited.
func (w *watch) release() {
	for _, rearm := range w.rearm {
		if rearm != nil {
			close(rearm) // wakes a parked helper
		}
	}
	// Wakes a helper waiting inside RawConn; internal/poll's Close returns
	// once every such wait has left it.
	w.file.Close()
	w.helpers.Wait()
}
