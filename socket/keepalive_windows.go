//go:build windows

package socket

import (
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setKeepAlivePeriod sets the idle time and the probe interval with
// SIO_KEEPALIVE_VALS, which every Windows has and which sets both at once
// and turns keep-alives on (net does the same on Windows before 10 1709).
// Windows 10 1709 added TCP_KEEPIDLE and TCP_KEEPINTVL, but Wine 8.0
// refuses them (WSAENOPROTOOPT). The period is rounded up to a second, as
// on Unix.
func setKeepAlivePeriod(s int, d time.Duration) error {
	ms := uint32(min(secondsUp(d), math.MaxUint32/1000) * 1000)
	ka := windows.TCPKeepalive{OnOff: 1, Time: ms, Interval: ms}
	var ret uint32
	err := windows.WSAIoctl(windows.Handle(s), windows.SIO_KEEPALIVE_VALS,
		(*byte)(unsafe.Pointer(&ka)), uint32(unsafe.Sizeof(ka)), nil, 0, &ret, nil, 0)
	return wrapSyscall("WSAIoctl", err)
}
