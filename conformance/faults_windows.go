//go:build windows

package conformance

// faultPlatformCases: the two Unix-only fault cases are left out here.
// FaultEINTRStormWhileBlocked: contractLeftOut says why.
// FaultTenThousandWatchedFDs sizes its load by RLIMIT_NOFILE; its Windows
// counterpart would be 5 000 loopback TCP connections, and the drivers'
// scaling is pinned on Windows by the driver case TwoThousandSocketpairs.
func faultPlatformCases() []Case { return nil }
