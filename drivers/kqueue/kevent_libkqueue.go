//go:build linux && cgo && eventloop_libkqueue

package kqueue

// #cgo pkg-config: libkqueue
// #include <stdlib.h>
// #include <kqueue/sys/event.h>
import "C"

import (
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kqueue of libkqueue, a userspace kqueue on top of epoll, to run the
// driver on Linux. The bug numbers are KQUEUE.md's.

const (
	filtRead    = C.EVFILT_READ
	filtWrite   = C.EVFILT_WRITE
	filtUser    = C.EVFILT_USER
	noteTrigger = C.NOTE_TRIGGER
	evAdd       = C.EV_ADD
	evDelete    = C.EV_DELETE
	evClear     = C.EV_CLEAR
	evEOF       = C.EV_EOF
	evError     = C.EV_ERROR

	hasUserFilter = true
	writeNeedsDup = true             // a second filter on one fd fails with EFAULT (bug 1)
	resolution    = time.Millisecond // timeouts are truncated to whole ms (bug 4)
)

type kqueue struct {
	fd  int
	buf *C.struct_kevent // maxEvents of them, in C memory, which cgocheck never scans
	ts  C.struct_timespec
	// chg holds two changes in C memory, so that a change does not move
	// to the heap on its way to C: [0] for the loop's goroutine, [1] for
	// the trigger, which the waker runs for one Wakeup at a time.
	chg *C.struct_kevent

	// The kqueue fd is the write end of a pipe. libkqueue's thread, told
	// through the read end that it was closed, then closes the epoll fd,
	// the filters' fds and, last, the read end (bug 7): close waits for
	// that, so that Close leaves no descriptor behind, as on a kernel.
	peer   int
	peerID fileID
}

// openMu makes one kqueue at a time.
var openMu sync.Mutex

func openKqueue() (*kqueue, error) {
	// libkqueue makes its pipe without O_CLOEXEC, and a child exec'd with
	// its write end would keep the kqueue alive: no fork until both ends
	// are close-on-exec.
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	// libkqueue's kqueue(3) is not safe from two threads at once: two
	// loops made in parallel (parallel tests) hung in it, for good.
	openMu.Lock()
	fd, err := C.kqueue()
	openMu.Unlock()
	if fd < 0 {
		return nil, errnoOr(err)
	}
	k := &kqueue{fd: int(fd), peer: -1}
	k.buf = (*C.struct_kevent)(C.malloc(maxEvents * C.sizeof_struct_kevent))
	k.chg = (*C.struct_kevent)(C.calloc(2, C.sizeof_struct_kevent))
	unix.CloseOnExec(k.fd)
	// pipe(2) hands out the read end first: just below the write end,
	// unless another thread took numbers in between.
	self, _, err := identify(k.fd)
	for p := k.fd - 1; err == nil && k.peer < 0 && p >= max(0, k.fd-64); p-- {
		if id, _, err := identify(p); err == nil && id == self {
			k.peer, k.peerID = p, id
			unix.CloseOnExec(p)
		}
	}
	return k, nil
}

func (k *kqueue) change(ident, filter, flags int, fflags uint32) error {
	slot := 0
	if filter == filtUser && fflags == noteTrigger {
		slot = 1
	}
	ch := &unsafe.Slice(k.chg, 2)[slot]
	*ch = C.struct_kevent{ident: C.uintptr_t(ident), filter: C.short(filter), flags: C.ushort(flags), fflags: C.uint(fflags)}
	r, err := C.kevent(C.int(k.fd), ch, 1, nil, 0, nil)
	if r < 0 && err == nil && flags&evAdd != 0 {
		return unix.EEXIST // EV_ADD on an existing knote leaves errno unset (bug 2)
	}
	if r < 0 {
		return errnoOr(err)
	}
	return nil
}

func (k *kqueue) wait(n int, timeout time.Duration) (int, error) {
	var ts *C.struct_timespec
	if timeout >= 0 {
		k.ts = C.struct_timespec{C.time_t(timeout / time.Second), C.long(timeout % time.Second)}
		ts = &k.ts
	}
	r, err := C.kevent(C.int(k.fd), nil, 0, k.buf, C.int(n), ts)
	if r < 0 {
		return 0, errnoOr(err)
	}
	return int(r), nil
}

func (k *kqueue) event(i int) (ident, filter, flags int, fflags uint32) {
	e := &unsafe.Slice(k.buf, maxEvents)[i]
	return int(e.ident), int(e.filter), int(e.flags), uint32(e.fflags)
}

// close waits up to about a second (a few ms in practice) for libkqueue's
// thread.
func (k *kqueue) close() error {
	err := unix.Close(k.fd)
	C.free(unsafe.Pointer(k.buf))
	C.free(unsafe.Pointer(k.chg))
	for pause := 10 * time.Microsecond; err == nil && k.peer >= 0 && pause < time.Second; pause *= 2 {
		if id, _, err := identify(k.peer); err != nil || id != k.peerID {
			break
		}
		time.Sleep(pause)
	}
	return err
}

func errnoOr(err error) error {
	if err == nil {
		return syscall.EINVAL
	}
	return err
}
