// Package epoll is the Linux driver: one epoll(7) instance, level-triggered,
// woken through an eventfd(2).
//
// Guarantees, beyond the driver.Driver contract:
//
//   - Register, Modify and Deregister make one epoll_ctl(2) call (Modify
//     with an unchanged interest makes none); Wait makes one epoll_wait
//     call, costs O(ready) whatever the number of registrations, and does
//     not allocate. A Wait reports at most len(events) events; the kernel
//     rotates its ready list, so an fd that stays ready does not starve the
//     others.
//   - Resolution: with epoll_pwait2(2) (Linux 5.11, probed once by New) a
//     positive timeout is passed as a timespec and Resolution reports a
//     microsecond; without it, the timeout is rounded up to whole
//     milliseconds and Resolution reports a millisecond.
//   - Wakeup writes to an eventfd; wakeups coalesce through an atomic flag
//     that Wait clears only after draining the eventfd, as the Go runtime's
//     netpollWakeSig does. It may be called from any goroutine, also while
//     Close runs: it never writes to a closed (or reused) descriptor, and
//     after Close it returns an error matching driver.ErrClosed.
//   - Interest 0 keeps the registration in the driver but takes the fd out
//     of the kernel, because epoll reports EPOLLHUP and EPOLLERR whatever
//     the mask (epoll_ctl(2)).
//   - Files epoll refuses (EPERM: regular files, directories) are accepted
//     and reported always ready, as poll(2) and the stream driver report
//     them; while one is registered with a non-zero interest Wait does not
//     block.
//   - Fd returns the epoll descriptor, readable whenever Wait has something
//     to report, to embed the loop in another one.
//
// # Fds closed behind the driver's back
//
// epoll watches open files, not numbers: when the last descriptor of a
// watched file is closed, the kernel drops the registration without a word
// (epoll(7), Q6), so a loop waiting only for that fd would block forever;
// and if the number is reused, epoll knows nothing of the new file. The
// driver finds such fds in three ways, none of which costs anything per
// event:
//
//   - A sweep re-validates every registration. For one in the kernel,
//     EPOLL_CTL_MOD with its own mask succeeds exactly when the number still
//     names the registered file, because epoll keys registrations by file and
//     number; for one outside the kernel (interest 0, always ready), fstat
//     compares device and inode with those seen at registration. The sweep
//     runs before a blocking Wait once it is due, and while fds are
//     registered a blocking Wait is capped at the next sweep. The interval
//     is 10 ms after any activity and doubles while the loop is idle, up to
//     1 s, and never drops below 100 times the last sweep's duration (one
//     system call per registration), so the sweep costs at most about 1%.
//     Detection latency is therefore 10 ms to 1 s (more only when a sweep
//     takes over 10 ms, that is with thousands of fds where system calls
//     are slow), and an idle loop with registrations wakes about once a
//     second.
//   - Register, Modify and Deregister read epoll_ctl's ENOENT and EBADF as
//     "closed": Deregister then succeeds, Modify succeeds and the next Wait
//     reports Closed, and Register of a reused number forgets the old
//     registration, reports it Closed, and registers the new file.
//   - An event for a registration the driver already forgot means the user
//     closed the fd while another descriptor (a dup, a child process) kept
//     the file open: epoll keeps that registration and offers no way to
//     remove it, and a file that stays ready would make Wait spin. The driver
//     then rebuilds its epoll instance with the live registrations and puts
//     it under the old number (dup3), so Fd() keeps its value; an outer epoll
//     that watched the old instance must register Fd() again, which only
//     this rare path requires.
//
// Each closed fd is reported once, as an Event with Closed set, and
// forgotten. Until the sweep runs, a closed fd reports nothing (the kernel
// dropped it), except in the dup case above, where its file may still be
// reported ready. A number closed and reopened onto the same file
// description (dup2 of a surviving descriptor) is, for epoll, the same
// registration, and is kept. For fds outside the kernel, a file opened
// twice (a tty, a regular file) shows the same device and inode, so such a
// reuse goes unnoticed; the registration then stands for the new file.
//
// On other systems New returns an error matching errors.ErrUnsupported.
package epoll
