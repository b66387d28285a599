// Package netpoll is the driver that waits with the Go runtime's own
// netpoller (epoll, kqueue or event ports, whichever the runtime uses), so
// a blocked loop parks a goroutine instead of an OS thread, and a Wakeup is
// a goroutine handoff rather than a thread wakeup.
//
// Register dups the fd and hands the dup to the runtime through os.NewFile
// and SyscallConn. Every Wait checks every watched fd with one zero-timeout
// poll(2) on the user's descriptors, O(watched) as in the stream driver,
// and reports what is ready: readiness is level-triggered exactly as with
// poll(2). A direction found not ready is armed: a helper goroutine waits
// for it in RawConn.Read or RawConn.Write, wakes a blocked Wait when it
// becomes ready, and parks until a Wait re-arms it. The runtime's poller
// only wakes Wait; what is reported always comes from poll(2).
//
// Costs, which BenchmarkCostPerWatch measures: each watched fd holds a dup
// (counted against RLIMIT_NOFILE) and an *os.File; each direction once found
// not ready, a goroutine until Deregister or Close, which wait for it.
//
// Beyond the contract:
//
//   - O_NONBLOCK belongs to the open file description, which the dup
//     shares with the user's fd, and os.NewFile hands the runtime only
//     non-blocking fds: for a blocking fd, Register sets the flag during
//     os.NewFile, so that for an instant another thread's blocking read of
//     the same fd could fail with EAGAIN.
//   - Closed fds: a number closed while watched and still free comes back
//     from the next Wait's poll(2) as POLLNVAL, and is reported once as
//     Closed and forgotten. Until then the dup keeps the file open (a
//     socket's peer sees no end of stream), the close wakes no blocked
//     Wait, and a number taken by another file is polled as that file: the
//     core finds such fds by itself and deregisters them.
//   - On Darwin the runtime's kqueue misses the last writer of a named FIFO
//     closing (Go issue 24164): only a later Wait reports that hang-up.
//
// Platforms: Linux and Android, Darwin and iOS, FreeBSD, NetBSD, OpenBSD,
// DragonFly, Solaris and illumos. Elsewhere New returns an error matching
// errors.ErrUnsupported: on AIX (whose PollFd differs, and which nothing
// builds or tests), Windows (no readiness wait on an arbitrary handle), js,
// wasip1 and Plan 9 (no descriptors to poll).
package netpoll
