//go:build windows

package socket

import (
	"errors"

	"golang.org/x/sys/windows"
)

// The Windows side of TestBadInput (badinput_unix_test.go is the other).

// canCloseBehind: a socket can be closed behind its conn's back.
const canCloseBehind = true

// closeSocket closes the socket fd.
func closeSocket(fd uintptr) error { return windows.Closesocket(windows.Handle(fd)) }

// canLimitFDs: Windows has no limit of a process's sockets to lower.
const canLimitFDs = false

func limitFDs() (restore func(), err error) { return nil, errors.ErrUnsupported }
