// Package netpoll is the driver that waits with the Go runtime's own
// netpoller (epoll, kqueue, event ports or pollset, whichever the runtime
// uses), so a blocked loop parks a goroutine instead of an OS thread, and a
// Wakeup is a goroutine handoff rather than a thread wakeup.
//
// # How
//
// Register dups the fd (F_DUPFD_CLOEXEC) and hands the dup to the runtime
// through os.NewFile and SyscallConn. Every Wait checks every watched fd
// with one zero-timeout poll(2) on the user's descriptors and reports what
// is ready, so readiness is level-triggered exactly as with poll(2): a fd
// is reported by every Wait for as long as it is ready. A direction found
// not ready is armed: a helper goroutine waits for it in RawConn.Read or
// RawConn.Write, whose callback asks poll(2) (on the dup) whether it is
// ready now, and the runtime calls it again on every edge it sees. When it
// says yes, the helper signals the loop and parks until the next Wait finds
// the direction not ready again and re-arms it. The runtime's poller thus
// only wakes a blocked Wait; what is reported always comes from poll(2).
//
// Every watched fd is polled, not only those whose helper spoke: the
// runtime hands readiness to goroutines one at a time, so when the
// first helper wakes Wait, an fd that became ready at the same moment may
// not have been handed over yet, and a level-triggered Wait must report it
// too.
//
// Wait blocks on a channel (buffer of one, shared by Wakeup and the
// helpers, so both coalesce) and a reused timer; it does not allocate.
//
// # Costs
//
//   - Every Wait is one poll(2) over all watched fds, O(watched), as with
//     the stream driver; a blocked Wait holds no OS thread, and a Wakeup or
//     a helper's signal is a goroutine handoff (about 0.4 µs here, against
//     some 100 µs to wake a thread blocked in epoll_wait on this machine).
//   - Per watched fd: one dup (it counts against RLIMIT_NOFILE) and an
//     *os.File with its runtime pollDesc; with one armed direction, about
//     1.1 KiB of heap in all (go test -run CostPerWatch -v measures it).
//   - Per armed direction: one goroutine, started the first time the
//     direction is found not ready (a writable socket watched for Write
//     usually never needs one) and kept until the direction is dropped
//     (Modify), the fd deregistered or the driver closed. It parks in the
//     runtime poller on its initial 2 KiB stack. 10,000 fds watched for
//     Read thus cost 10,000 extra descriptors and about 30 MiB.
//   - Per readiness edge: the helper's poll(2) and two goroutine switches.
//     Register costs about eight system calls; Deregister and a Modify that
//     drops a direction wait for the helper to exit, so that no goroutine
//     and no dup outlive them.
//
// # Semantics beyond the contract
//
//   - Flags: os.NewFile hands only non-blocking descriptors to the poller,
//     and O_NONBLOCK belongs to the open file description, which the dup
//     shares with the user's fd. For a blocking fd, Register sets the flag
//     for the duration of os.NewFile and clears it again (the runtime never
//     reads or writes the dup, so it does not need the flag afterwards).
//     For that instant another thread's blocking read of the same fd could
//     fail with EAGAIN.
//   - Files the runtime's poller refuses (regular files and directories on
//     Linux, detected because their deadlines fail with os.ErrNoDeadline)
//     are accepted and reported always ready, as poll(2) and the other
//     drivers report them; while one is watched, Wait does not block.
//   - An fd closed behind the driver's back whose number stays free is
//     found by the next Wait (POLLNVAL), reported once as Closed, and
//     forgotten, which closes the dup. Until then the dup keeps the file
//     open, so the peer of such a socket sees the end of stream only then.
//     A number closed and reused by another file is found by a sweep, as in
//     the epoll driver: fstat compares the fd's device and inode with the
//     dup's, every 10 ms after activity, doubling while idle up to 1 s (and
//     at least 100 times the sweep's own duration); a blocking Wait is
//     capped at the next sweep while fds are watched, and a Register of a
//     number the driver still holds makes the same check. Latency: the
//     next Wait for a free number, 10 ms to 1 s for a reused one, during
//     which the new file's readiness is reported under the old token. A
//     number reopened onto the same file (a tty opened twice) shows the
//     same identity and goes unnoticed.
//   - The runtime's kqueue does not report the last writer of a named FIFO
//     closing on Darwin (Go issue 24164), so a Wait blocked on such a FIFO
//     is not woken by its hang-up; the next Wait reports it, at the latest
//     when the sweep cap ends the blocked one (within 1 s). Prefer the
//     kqueue or stream driver for FIFOs on Darwin.
//
// # Platforms
//
// Every Unix the Go runtime supports: Linux and Android, Darwin and iOS,
// FreeBSD, NetBSD, OpenBSD, DragonFly, Solaris and illumos, AIX; that is,
// the same systems as the stream driver, since the readiness checks are
// poll(2). Elsewhere New returns an error matching errors.ErrUnsupported:
// on Windows the runtime polls sockets, not int descriptors, and offers no
// readiness wait on a RawConn of an arbitrary handle; js, wasip1 and Plan 9
// have no descriptors to poll.
package netpoll
