// Package kqueue is the kqueue(2) driver of the event loop, for darwin,
// FreeBSD, NetBSD, OpenBSD and DragonFly, level-triggered, woken by an
// EVFILT_USER event (a self-pipe on NetBSD and OpenBSD, where x/sys has no
// EVFILT_USER). It implements driver.Driver, whose doc comment is its
// contract, and driver.WaitResolution; Fd exposes the kqueue descriptor.
//
// # What is tested where
//
// Nothing of this driver is tested on a real kernel: no BSD or darwin
// machine is available to the project's tests. The driver logic is written
// once against a small seam (a kqueue type with change, wait, event and
// close, and a few constants for filters, flags and backend facts) with two
// implementations:
//
//   - kevent_bsd.go, on golang.org/x/sys/unix, for the BSDs and darwin. It
//     is only compiled and vetted, tests included, with CGO_ENABLED=0
//     (darwin amd64/arm64, freebsd amd64/arm64/386/arm/riscv64, netbsd
//     amd64/386/arm/arm64, openbsd amd64/386/arm/arm64/ppc64/riscv64,
//     dragonfly/amd64), never run.
//   - kevent_libkqueue.go, cgo over libkqueue, a userspace kqueue on top of
//     epoll, for Linux with the build tag eventloop_libkqueue (pkg-config
//     libkqueue). This is what the tests run, conformance suite included,
//     once with each waker.
//
// Elsewhere (Linux without the tag or without cgo, windows, js, ...) New
// returns an error matching errors.ErrUnsupported.
//
// # libkqueue workarounds
//
// libkqueue 2.3.1 differs from a kernel kqueue; the numbers are those of
// the project's KQUEUE.md, where each was measured. The driver does what is
// right on both:
//
//   - A registration holds exactly the filters of its interest: Modify adds
//     and deletes filters, never re-adds one (EV_ADD on an existing
//     registration fails, bug 2), and every filter is deleted before the
//     driver forgets it (a knote left behind breaks the next fd with that
//     number, bug 3).
//   - READ and WRITE on one fd fail over libkqueue (bug 1): the second
//     filter goes on a dup of the fd, and its events are mapped back. The
//     dup is closed as soon as it carries nothing.
//   - Timeouts are rounded up to whole milliseconds over libkqueue, which
//     truncates them (bug 4); Resolution reports 1 ms there.
//   - kevent's data field is never read (bug 5), nor udata: events are keyed
//     by ident and filter in the driver's own table.
//   - Changes are applied one at a time with an empty event list, so that a
//     failure is an errno for exactly that change (bug 9).
//   - Regular files and directories never enter the kqueue (libkqueue
//     refuses them with EFAULT; a kernel reports a regular file readable
//     only before its end): every Wait reports them ready, as poll(2) does
//     (always.go).
//   - One kevent call returns at most 512 events (bug 10).
//   - EINTR, frequent under the Go runtime's preemption signals (bug 11),
//     makes Wait wait again for the time left.
//   - The kqueue fd is never handed to os.File or the netpoller (bug 7).
//     libkqueue frees what goes with it (epoll, eventfds, a pipe) from its
//     own thread once the kqueue fd is closed; Close waits for that (up to
//     1 s, a few ms in practice), so that it returns with every descriptor
//     released, as on a kernel.
//
// # Closed fds
//
// A kernel removes the knotes of an fd at close(2) without a word (kevent(2):
// "Calling close() on a file descriptor will remove any kevents that
// reference the descriptor"); libkqueue's epoll forgets a closed fd just as
// silently, unless another descriptor (such as the driver's own dup) keeps
// its file open, in which case epoll keeps reporting it. Either way Wait
// would hang on it or spin on it. So the driver validates registrations:
//
//   - All of them in sweeps, scheduled as in the epoll and netpoll drivers
//     (drivers/internal/fdcheck): 10 ms after the last activity (an event,
//     a Register, Modify or Deregister), the interval doubling on each idle
//     sweep up to 1 s, and never below 100 times the cost of the last
//     sweep. A sweep runs at the start of a Wait when due (a Wait(0) reads
//     the clock only every 256th call), and while fds are registered a
//     blocking kevent call ends when the next sweep is due: an idle loop
//     with registered fds wakes at most once a second.
//   - Over libkqueue, also every fd of which the driver holds a dup (READ
//     and WRITE), each time it reports an event and before it is reported:
//     the dup keeps the file open, so epoll would report the closed fd as
//     ready until the next sweep.
//
// A check is one syscall: on a kernel, EV_ENABLE on one of the fd's filters
// (ENOENT or EBADF once close removed it; this also covers sockets, whose
// fstat has no identity on the BSDs); over libkqueue, and for a
// registration with no filter, fstat, compared with the device and inode
// seen at Register. A closed fd yields one Event with Closed set and is
// forgotten: within about 10 ms of activity, 1 s at worst (more only if a
// sweep of very many fds takes over 10 ms), while the loop keeps calling
// Wait. Register on an fd number still registered whose file
// changed reports the old registration as Closed at the next Wait and
// proceeds.
//
// Limits: on the BSDs, a socket registered with interest 0, closed, and its
// number reused by another socket is not noticed (no filter to probe, no
// inode to compare). Over libkqueue, a registered fd closed while another
// descriptor of the caller's keeps its file open stays in epoll, which
// reports it as ready until the sweep and then points at the knote the
// sweep deleted: libkqueue cannot be kept safe there. The contract (the
// core deregisters before the fd is closed) keeps the driver out of both
// cases.
//
// # Wakeup
//
// Wakeup may be called from any goroutine, also during Close: Close waits
// for the calls in flight before it closes anything, so a late Wakeup never
// writes to a reused descriptor. Wakeups coalesce through an atomic flag
// that Wait clears once it consumed the wakeup event (EV_CLEAR resets the
// user event; the pipe is drained).
package kqueue
