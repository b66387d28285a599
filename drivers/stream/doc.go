// Package stream is the portable driver: it waits with poll(2), or
// WSAPoll on Windows, the way Revolt's StreamSelectDriver waits with
// stream_select. It is the fallback for any Unix without a better
// mechanism, the second choice on Windows (after package afd), and the
// reference the other drivers are compared with.
//
// Guarantees, beyond the driver.Driver contract:
//
//   - No FD_SETSIZE ceiling: poll takes an array, so any number of fds, of any
//     number, can be watched (up to RLIMIT_NOFILE, which bounds the array).
//   - Register, Modify and Deregister are O(1). Only Register makes a system
//     call: a zero-timeout poll of the new fd alone, so that an fd that is
//     not open (EBADF) or that poll cannot watch (devices on macOS:
//     errors.ErrUnsupported) is refused at once, as epoll_ctl refuses what
//     epoll cannot watch, instead of coming back from Wait as Closed.
//   - Wait makes one poll(2) call over every watched fd, so it costs O(n) in
//     the number of registrations, and it does not allocate.
//   - A registration with interest 0 keeps its slot but is handed to poll
//     with a negative fd, which POSIX says poll ignores, so a hung-up fd that
//     nobody watches cannot make Wait return at once forever.
//   - When more fds are ready than the caller's slice holds, the next Wait
//     starts where the last one stopped, so an fd that stays ready cannot
//     starve the ones behind it.
//   - Wakeup goes through the drivers' shared waker: an eventfd on Linux, a
//     non-blocking self-pipe elsewhere, with coalescing wakeups.
//
// Closed fds: poll(2) asks about numbers, so a number closed while
// registered and still free comes back as POLLNVAL, and the next Wait
// reports it once with Closed set and forgets it. poll says nothing about a
// close that happens while it blocks (on Linux it is not woken), nor about
// a number already taken by another file, whose readiness it then reports
// under the old token: the core finds both by itself and deregisters the
// number. Deregister makes no system call, so it succeeds whatever became
// of the fd.
//
// Resolution: poll(2) takes whole milliseconds, so a positive timeout is
// rounded up to the next millisecond (Resolution reports 1ms); timeouts
// beyond about 11.5 days are capped, as the Go runtime caps its own, and
// Wait then returns (0, nil) early, which the contract allows.
//
// # Windows
//
// On Windows the driver waits with WSAPoll, Winsock's poll(2), which
// watches sockets and nothing else: Register refuses any other handle with
// an error that names it and matches errors.ErrUnsupported, and the wakeup
// is a connected loopback pair of TCP sockets. An fd is a SOCKET handle as
// an int. A socket closed while registered is reported Closed once WSAPoll
// answers POLLNVAL for it.
//
// The whole conformance suite passes under Wine 8.0 on Linux, with -race,
// in the "Windows under Wine" cells of ci/test.sh, and
// .github/workflows/ci.yml runs it on a real Windows the day the project
// is hosted. Wine's WSAPoll is its own, over the host's poll(2), and so
// cannot show the faults of Windows' own: before Windows 10 version 2004 a
// non-blocking connect that failed was not reported at all (the socket
// never became ready, and a watcher waiting for it waited forever);
// whether a WSAPoll returns for a socket another thread closes (Wine's
// does, with POLLNVAL; where it does not, the core's sweep finds the
// close); and Windows' rounding of the timeout up to its timer tick
// (15.6 ms unless a process raised the resolution). Wine also writes POLLNVAL into entries
// it was told to ignore (revents here reads nothing from those).
//
// On systems without poll(2) (Plan 9, js, wasip1) New returns an error
// matching errors.ErrUnsupported.
package stream
