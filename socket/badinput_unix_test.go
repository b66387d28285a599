//go:build unix

package socket

import (
	"reflect"
	"syscall"

	"golang.org/x/sys/unix"
)

// The Unix side of TestBadInput (badinput_windows_test.go is the other).

// canCloseBehind: a descriptor can be closed behind its conn's back.
const canCloseBehind = true

// closeSocket closes the descriptor fd.
func closeSocket(fd uintptr) error { return unix.Close(int(fd)) }

// canLimitFDs: RLIMIT_NOFILE can be lowered.
const canLimitFDs = true

// limitFDs lowers RLIMIT_NOFILE to the lowest free number, so that no new
// descriptor can be made, until restore.
func limitFDs() (restore func(), err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil, err
	}
	free, err := unix.Dup(0)
	if err != nil {
		return nil, err
	}
	unix.Close(free)
	low := lim
	// Cur is an int64 on some systems, a uint64 on others.
	if f := reflect.ValueOf(&low.Cur).Elem(); f.CanUint() {
		f.SetUint(uint64(free))
	} else {
		f.SetInt(int64(free))
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		return nil, err
	}
	restored := false
	return func() {
		if !restored {
			restored = true
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
				panic(err)
			}
		}
	}, nil
}
