//go:build windows

package conformance

// faultPlatformCases: the two Unix-only fault cases are left out here.
// FaultEINTRStormWhileBlocked raises signals at the process, which a test
// cannot do on Windows (revolt_windows.go), and Winsock calls are never
// interrupted anyway. FaultTenThousandWatchedFDs sizes its load by
// RLIMIT_NOFILE; its Windows counterpart would be 5 000 loopback TCP
// connections, and the drivers' scaling is pinned on Windows by the
// driver case TwoThousandSocketpairs.
func faultPlatformCases() []Case { return nil }
