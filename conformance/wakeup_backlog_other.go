//go:build !linux

package conformance

// wakeupBacklog cannot list what waits in the process's fds here: the
// driver-level half of dcWakeupsCoalesce runs alone, and the unit tests of
// the shared waker (drivers/internal/waker) pin the coalescing itself.
func wakeupBacklog() (backlog map[int]uint64, ok bool) { return nil, false }
