// Package fdcheck is what the epoll, netpoll and stream drivers share to
// notice a registered fd that was closed behind their back, and to report
// it once.
//
// None of their mechanisms reports every such close. epoll(7) drops the
// registration of a file whose last descriptor is closed ("Will closing a
// file descriptor cause it to be removed from all epoll interest lists?", Q6
// in its man page) and says nothing; the netpoll driver watches a dup, which
// keeps the file open, so its poller never sees the close either; poll(2)
// need not be woken by a close from another thread (Linux's is not), and
// once a new file takes the number it reports on that file. The drivers
// therefore re-validate their registrations now and then (a Sweep), and
// compare an fd's identity (Identify) with the one it had when registered.
//
// The sweep costs nothing per event: a driver consults the clock only before
// a Wait that would block (or on every 256th poll), and caps a blocking Wait
// at the next sweep only while it has registrations. The interval between
// sweeps starts at MinInterval after any activity and doubles on every idle
// sweep up to MaxInterval, so an idle process wakes at most once a second,
// and never falls below 100 times the cost of the last sweep, so that
// sweeping thousands of fds costs at most about 1% of the loop's time.
// Sweep.BeforeWait and Sweep.AfterWait apply that schedule around a Wait,
// so that every driver follows it to the letter.
//
// A Closed event found where there is no room for it (outside Wait, or
// past the end of the caller's slice) waits in a Pending for the next Wait:
// the driver has forgotten the fd, so no later sweep would find it again.
package fdcheck
