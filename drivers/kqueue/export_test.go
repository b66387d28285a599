//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

// NewPipeWaker makes a driver woken through a self-pipe instead of
// EVFILT_USER, so that the tests run the conformance suite with each waker.
func NewPipeWaker() (*Driver, error) { return newDriver(true) }

// HasUserFilter reports whether New wakes through EVFILT_USER.
const HasUserFilter = hasUserFilter

// Dups reports how many dups the driver holds (libkqueue's READ+WRITE
// workaround).
func (d *Driver) Dups() int { return len(d.dups) }

// WritesOnDup reports whether this backend puts WRITE on a dup.
const WritesOnDup = writeNeedsDup
