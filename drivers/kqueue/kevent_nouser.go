//go:build netbsd || openbsd

package kqueue

// x/sys has no EVFILT_USER for NetBSD and OpenBSD: New wakes through a
// self-pipe there. filtUser is a value no kernel filter takes, so that no
// event is mistaken for a trigger.
const (
	hasUserFilter = false
	filtUser      = -1 << 30
	noteTrigger   = 0
)
