//go:build linux && cgo && eventloop_libkqueue

package kqueue

/*
#cgo pkg-config: libkqueue
#include <errno.h>
#include <stdlib.h>
#include <kqueue/sys/event.h>

// The struct is built on the C side so that no Go pointer crosses into C and
// a change costs no allocation.
static int kq_change(int kq, uintptr_t ident, short filter, unsigned short flags, unsigned int fflags) {
	struct kevent ch;
	EV_SET(&ch, ident, filter, flags, fflags, 0, NULL);
	errno = 0;
	int r = kevent(kq, &ch, 1, NULL, 0, NULL);
	// libkqueue 2.3.1 fails EV_ADD on an existing registration with -1 and
	// errno untouched (KQUEUE.md, bug 2).
	if (r < 0 && errno == 0)
		errno = (flags & EV_ADD) ? EEXIST : EINVAL;
	return r;
}

static int kq_wait(int kq, struct kevent *buf, int n, long long ns) {
	struct timespec ts, *tp = NULL;
	if (ns >= 0) {
		ts.tv_sec = ns / 1000000000;
		ts.tv_nsec = ns % 1000000000;
		tp = &ts;
	}
	errno = 0;
	int r = kevent(kq, NULL, 0, buf, n, tp);
	if (r < 0 && errno == 0)
		errno = EINVAL;
	return r;
}
*/
import "C"

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// The seam over libkqueue, a userspace kqueue on epoll, used to test the
// driver on Linux (build tag eventloop_libkqueue, cgo, pkg-config libkqueue).

const (
	filtRead  = C.EVFILT_READ
	filtWrite = C.EVFILT_WRITE

	evAdd    = C.EV_ADD
	evDelete = C.EV_DELETE
	evEnable = C.EV_ENABLE
	evClear  = C.EV_CLEAR
	evEOF    = C.EV_EOF
	evError  = C.EV_ERROR

	hasUserFilter = true
	filtUser      = C.EVFILT_USER
	noteTrigger   = C.NOTE_TRIGGER
)

// The libkqueue 2.3.1 facts the driver logic branches on (KQUEUE.md).
const (
	// close(2) takes an fd out of epoll only when its open file description
	// dies: a closed fd is silent, or keeps reporting while a dup lives, and
	// its knote stays behind (bug 3). EV_DELETE on the closed fd still drops
	// the knote, though it returns EBADF.
	closeRemovesKnotes = false

	// The second EV_ADD of READ and WRITE on one fd fails with EFAULT
	// (bug 1): WRITE goes on a dup of the fd.
	writeNeedsDup = true

	// Timeouts of 1 ms and more are truncated to whole milliseconds (bug 4):
	// the driver rounds up to the next millisecond so that it never returns
	// early.
	resolution = time.Millisecond
)

type kqueue struct {
	fd  int
	buf *C.struct_kevent // C memory: never scanned by cgocheck, never moved
	n   int

	// libkqueue's kqueue fd is the write end of a pipe. Its monitoring
	// thread, signalled through the read end when the write end is closed,
	// then closes the epoll fd, the filters' fds and the read end (KQUEUE.md,
	// bug 7; libkqueue's src/linux/platform.c). close waits for the read
	// end to go, which it does last, so that Close returns with every
	// descriptor released, as on a kernel.
	peer   int // the read end, -1 if not found
	peerID fdcheck.Ident
}

// peerWait bounds how long close waits for libkqueue's thread; past it the
// descriptors still go, only later.
const peerWait = time.Second

func openKqueue(size int) (*kqueue, error) {
	// libkqueue makes its pipe without O_CLOEXEC: a child exec'd meanwhile
	// would hold the write end open, and libkqueue would never see the
	// close that frees the kqueue. ForkLock keeps forks out until both ends
	// are close-on-exec.
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := C.kqueue()
	if fd < 0 {
		return nil, errnoOr(err)
	}
	unix.CloseOnExec(int(fd))
	buf := (*C.struct_kevent)(C.calloc(C.size_t(size), C.size_t(unsafe.Sizeof(C.struct_kevent{}))))
	if buf == nil {
		unix.Close(int(fd))
		return nil, unix.ENOMEM
	}
	k := &kqueue{fd: int(fd), buf: buf, n: size, peer: -1}
	if k.findPeer(); k.peer >= 0 {
		unix.CloseOnExec(k.peer)
	}
	return k, nil
}

// findPeer looks for the read end of the kqueue's pipe: the other fd with the
// same pipe inode. pipe(2) hands out the read end first, so it is just below
// the write end unless another thread took numbers in between.
func (k *kqueue) findPeer() {
	var st unix.Stat_t
	if unix.Fstat(k.fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return
	}
	id := fdcheck.Ident{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	for fd := k.fd - 1; fd >= 0 && fd >= k.fd-64; fd-- {
		if got, err := fdcheck.Identify(fd); err == nil && got == id {
			k.peer, k.peerID = fd, id
			return
		}
	}
}

func (k *kqueue) change(ident, filter, flags int, fflags uint32) error {
	r, err := C.kq_change(C.int(k.fd), C.uintptr_t(ident), C.short(filter), C.ushort(flags), C.uint(fflags))
	if r < 0 {
		return errnoOr(err)
	}
	return nil
}

func (k *kqueue) wait(n int, timeout time.Duration) (int, error) {
	r, err := C.kq_wait(C.int(k.fd), k.buf, C.int(n), C.longlong(timeout))
	if r < 0 {
		return 0, errnoOr(err)
	}
	return int(r), nil
}

func (k *kqueue) event(i int) (ident, filter, flags int) {
	e := &unsafe.Slice(k.buf, k.n)[i]
	return int(e.ident), int(e.filter), int(e.flags)
}

// close frees the queue. Nothing else may ever hold the kqueue fd: libkqueue
// reclaims what goes with it from its own thread (bug 7).
func (k *kqueue) close() error {
	err := unix.Close(k.fd)
	C.free(unsafe.Pointer(k.buf))
	k.buf = nil
	if err == nil && k.peer >= 0 {
		pause := 10 * time.Microsecond
		for start := time.Now(); time.Since(start) < peerWait; pause = min(2*pause, time.Millisecond) {
			if id, err := fdcheck.Identify(k.peer); err != nil || id != k.peerID {
				break
			}
			time.Sleep(pause)
		}
	}
	return err
}

func errnoOr(err error) error {
	if err == nil {
		return syscall.EINVAL
	}
	return err
}
