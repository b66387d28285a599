//go:build darwin || dragonfly || freebsd

package kqueue

import "golang.org/x/sys/unix"

// EVFILT_USER exists here (-10 on darwin, -11 on FreeBSD, -9 on DragonFly).
const (
	hasUserFilter = true
	filtUser      = unix.EVFILT_USER
	noteTrigger   = unix.NOTE_TRIGGER
)
