// Package stream is the portable POSIX driver: it waits with poll(2), the
// way Revolt's StreamSelectDriver waits with stream_select. It is the
// fallback for any Unix without a better mechanism and the reference the
// other drivers are compared with.
//
// Guarantees, beyond the driver.Driver contract:
//
//   - No FD_SETSIZE ceiling: poll takes an array, so any number of fds, of any
//     number, can be watched (up to RLIMIT_NOFILE, which bounds the array).
//   - Register, Modify and Deregister are O(1). Only Register makes system
//     calls: a zero-timeout poll of the new fd alone, so that an fd that is
//     not open (EBADF) or that poll cannot watch (devices on macOS:
//     errors.ErrUnsupported) is refused at once, as epoll_ctl refuses what
//     epoll cannot watch, instead of coming back from Wait as Closed; and
//     an fstat(2), whose device and inode identify the file later (below).
//   - Wait makes one poll(2) call over every watched fd, so it costs O(n) in
//     the number of registrations, and it does not allocate.
//   - A registration with interest 0 keeps its slot but is handed to poll
//     with a negative fd, which POSIX says poll ignores, so a hung-up fd that
//     nobody watches cannot make Wait return at once forever.
//   - When more fds are ready than the caller's slice holds, the next Wait
//     starts where the last one stopped, so an fd that stays ready cannot
//     starve the ones behind it.
//   - An fd closed while registered is reported once with Closed set and
//     forgotten; see below for how soon.
//   - Wakeup writes to an eventfd on Linux and to a non-blocking self-pipe
//     elsewhere; wakeups coalesce through an atomic flag that Wait clears
//     only after draining that fd, as the Go runtime's netpollWakeSig does.
//
// # Fds closed behind the driver's back
//
// poll(2) asks about numbers. A number closed between two Waits and still
// free comes back from the next poll as POLLNVAL and is reported at once.
// But a close from another thread need not wake a poll that is already
// blocked (on Linux it does not), and once a new file takes the number, poll
// reports on that file and never says POLLNVAL. So the driver also sweeps,
// as the epoll and netpoll drivers do: it compares the device and inode that
// fstat(2) gives for each registered fd with the ones recorded at Register,
// and reports the fd Closed where the number is free or names another file.
// Sweeps run 10 ms after activity (an event reported or a registration
// changed), doubling while idle up to 1 s (and at least 100 times the
// sweep's own duration, so that thousands of fds cost about 1%); while any
// fd is registered, a blocking Wait is capped at the next sweep, so an idle
// loop with registrations wakes about once a second. Latency: the next Wait
// for a number closed between Waits and left free; 10 ms to 1 s for a close
// while Wait blocks or a reused number. A Register of a number the driver
// still holds makes the same check, and reports the old registration Closed
// if the file changed. A file opened twice (a tty, a FIFO, a regular file)
// shows the same device and inode both times, so that one reuse goes
// unnoticed, and the registration then stands for the new file.
//
// Resolution: poll(2) takes whole milliseconds, so a positive timeout is
// rounded up to the next millisecond (Resolution reports 1ms); timeouts
// beyond about 11.5 days are capped, as the Go runtime caps its own, and
// Wait then returns (0, nil) early, which the contract allows.
//
// On systems without poll(2) (Windows, Plan 9, js, wasip1) New returns an
// error matching errors.ErrUnsupported.
package stream
