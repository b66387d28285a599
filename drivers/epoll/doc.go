// Package epoll is the Linux driver: one epoll(7) instance, level-triggered,
// woken through an eventfd (package drivers/internal/waker).
//
// Beyond the driver.Driver contract:
//
//   - Register, Modify and Deregister make at most one epoll_ctl(2) call
//     (two when ADD meets EEXIST); Wait makes one epoll_wait call, costs
//     O(ready) whatever the number of registrations, and does not
//     allocate. The kernel rotates its ready list, so an fd that stays
//     ready does not starve the others.
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
