//go:build netbsd || openbsd

package kqueue

// x/sys has no EVFILT_USER for NetBSD and OpenBSD, so New wakes through a
// self-pipe there. filtUser is a value no kernel filter takes, so that the
// comparisons in Wait are dead code the compiler drops.
const (
	hasUserFilter = false
	filtUser      = -1 << 30
	noteTrigger   = 0
)
