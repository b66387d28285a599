// Package epoll is the Linux driver: one epoll(7) instance, level-triggered,
// woken through an eventfd (package drivers/internal/waker).
//
// Beyond the driver.Driver contract:
//
//   - Register, Modify and Deregister make at most one epoll_ctl(2) call
//     (two when ADD meets EEXIST); Wait costs O(ready) whatever the number
//     of registrations, and does not allocate. The kernel rotates its
//     ready list, so an fd that stays ready does not starve the others.
//   - Wait does not hold a thread while it waits long. It takes what is
//     ready with a zero-timeout epoll_wait, a raw system call; if nothing
//     is, the timeout is 2 ms or more (or none) and the process has as
//     many epoll drivers open as Ps (a loop per CPU), it parks the loop's
//     goroutine in the Go runtime's netpoller until a millisecond before
//     the timeout. The netpoller watches a second epoll instance, which
//     watches the first only while a Wait is parked (EPOLLONESHOT, armed
//     and disarmed by epoll_ctl): the runtime is not woken by the events
//     of a loop that is running; it costs the driver a descriptor more.
//     The rest of a timeout, and shorter ones, Wait waits in
//     epoll_pwait2(2), to the microsecond (epoll_wait, to the millisecond,
//     before Linux 5.11). A goroutine blocked in epoll_wait holds its P in a
//     system call: with the other Ps busy (a loop per CPU) the runtime's
//     sysmon takes the P from it and goes on waking every 20 us, and the
//     thread has to win a P back when the call returns. Parked, a loop
//     costs the scheduler what a goroutine waiting on a net.Conn does.
//     With fewer loops than Ps, sysmon leaves a blocked P alone while
//     another is idle, and one blocking call is cheaper than a park.
//   - Interest 0 keeps the registration in the driver but takes the fd out
//     of the kernel, because epoll reports EPOLLHUP and EPOLLERR whatever
//     the mask (epoll_ctl(2)).
//   - Files epoll refuses (EPERM: regular files, directories) are reported
//     always ready, as poll(2) reports them; while one is registered with
//     a non-zero interest, Wait does not block.
//
// # Closed fds
//
// epoll watches open files, not numbers: closing the last descriptor of a
// watched file drops its registration without a word (epoll(7), Q6), and a
// number reused by another file is a file epoll never saw. The core finds
// such fds and deregisters them; the driver passes on what epoll_ctl says.
// EBADF (no file has the number) or ENOENT (another file has it) means the
// registered fd is gone: Deregister succeeds, and Modify succeeds and the
// next Wait reports the fd Closed.
//
// If the user closes a watched fd while another descriptor keeps the file
// open, epoll keeps the registration, and its events are reported as the
// fd's until the fd is deregistered. The first one after that makes the
// driver rebuild its epoll instance without it, so that a file that stays
// ready cannot make Wait spin; see Driver.Fd for what that means to a loop
// that embeds this one.
//
// On other systems New returns an error matching errors.ErrUnsupported.
package epoll
