// Package afd is the Windows driver: readiness of sockets through the AFD
// poll interface (IOCTL_AFD_POLL on a handle of \Device\Afd, the ancillary
// function driver under Winsock) with an I/O completion port, the technique
// of wepoll and of mio's Windows selector. Where WSAPoll (package stream)
// hands the kernel every watched socket on every call, a poll here is
// submitted once per socket and completes when the socket is ready, so a
// Wait costs O(ready) whatever the number watched. It is what
// eventloop.New picks on Windows.
//
// Beyond the driver.Driver contract:
//
//   - Sockets only, named by their SOCKET handle as an int, as WSAPoll and
//     AFD know nothing else: Register refuses any other handle with an
//     error that names it and matches errors.ErrUnsupported, and a handle
//     that is not open with getsockopt's WSAENOTSOCK.
//   - One poll per registration with a non-zero interest, on an AFD handle
//     shared by up to 32 sockets (as wepoll and mio group them: the kernel
//     keeps a handle's pending polls in one list); handles are opened as
//     sockets come and closed as they go, down to the one New opens.
//   - Level-triggered by re-arming: a poll completes once, so each
//     registration a Wait reports is polled again by the next Wait, and that
//     poll completes at once while the socket stays ready. Completions leave
//     the port in the order they came, so a socket that stays ready cannot
//     starve the others.
//   - Register and Deregister make no wait; Modify to other events cancels
//     the pending poll (NtCancelIoFileEx), and the Wait that takes the
//     cancellation polls for the new ones before it blocks again.
//   - A reset (AFD_POLL_ABORT) or a failed connect makes every registered
//     interest ready; the peer's shutdown (AFD_POLL_DISCONNECT) makes the
//     socket readable (end of file). Urgent data alone (the expedited
//     receive, not inline) does not: a read does not return it.
//   - Wakeup posts a packet to the completion port, coalesced through the
//     drivers' shared waker.
//   - The memory the kernel writes a poll's result to is allocated outside
//     the Go heap and given back only once the poll's completion has been
//     dequeued; Close cancels every pending poll, closes the AFD handles,
//     and waits for the completions before it closes the port.
//
// Closed sockets: closing a socket's last handle completes its poll with
// AFD_POLL_LOCAL_CLOSE, at once, even while Wait blocks; the next Wait
// reports it Closed and forgets it. A socket closed while no poll was
// pending (interest 0, or between a report and the next Wait) is found when
// the poll is submitted (STATUS_INVALID_HANDLE; Wine answers
// STATUS_OBJECT_TYPE_MISMATCH) and reported Closed the same way; a handle
// that meanwhile names a new socket is polled as the old one until the
// core's sweep deregisters it, as the contract allows. Deregister cancels,
// which succeeds whatever became of the socket.
//
// Resolution: GetQueuedCompletionStatusEx takes whole milliseconds, so a
// positive timeout is rounded up to the next one (Resolution reports 1 ms)
// and capped at about 11.5 days.
//
// # What ran where
//
// The whole conformance suite passes under Wine 8.0 on Linux, with -race
// (the race runtime for windows/amd64 needs cgo and MinGW's gcc), in the
// "Windows under Wine" cells of ci/test.sh; .github/workflows/ci.yml runs
// it on a real Windows the day the project is hosted. Wine implements AFD
// polls itself, over the host's sockets, and so cannot show:
//
//   - Windows' own AFD: its timing, its status codes where Wine's differ
//     (the one known is handled above), and the cost of many pending polls
//     on one AFD handle that the groups of 32 are for. Wine's server hands
//     a poll's result to the thread that submitted it, as an APC, and the
//     completion is queued once that thread has run it, which on a loaded
//     machine can be milliseconds after the socket became ready: under
//     Wine the driver says so (ReadinessLag, 200 ms), and the two
//     conformance cases that make sockets ready and expect one Wait to
//     report them all accept the Waits of that long. Windows' AFD queues
//     the completion itself, and there the lag is 0.
//   - Layered service providers: a socket of one is polled through its
//     base provider's handle (SIO_BASE_HANDLE, asked only when
//     SO_PROTOCOL_INFOW names a protocol chain); Wine has none.
//   - The clock: Windows rounds a wait up to its timer tick (15.6 ms unless
//     a process raised the resolution), which the suite's timeout accuracy
//     cases meet only on a real Windows.
//
// On systems other than Windows, New returns an error matching
// errors.ErrUnsupported.
package afd
