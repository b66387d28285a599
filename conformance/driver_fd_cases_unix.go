//go:build unix

package conformance

import (
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// dcPlatformFdCases are the driver fd cases that only Unix can run: they
// need a regular file that poll(2) reports, and a dup onto a chosen number.
func dcPlatformFdCases() []DriverCase {
	return []DriverCase{
		// "Regular files are always ready, as poll(2) has them."
		{"RegularFileIsAlwaysReady", dcRegularFileIsAlwaysReady},
		// DESIGN section 8: fds numbered above 1024 (FD_SETSIZE).
		{"FdAbove1024", dcFdAbove1024},
	}
}

// contractLeftOut names the cases of the contract table that Unix does not
// run, and why.
var contractLeftOut = map[string]string{
	"NonSocketIsRefused": "the Unix drivers watch any fd poll(2) can, sockets or not",
}

// dcRegularFileIsAlwaysReady: epoll and the runtime poller refuse regular
// files (EPERM); a driver must still report them ready, every Wait, for
// each interest, as poll(2) does, and honour interest 0 and Deregister.
func dcRegularFileIsAlwaysReady(t *testing.T, d core.Driver) {
	file, err := os.CreateTemp(t.TempDir(), "regular")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fd := int(file.Fd())
	dcRegister(t, d, fd, 1, core.Read|core.Write)
	dcExpectNow(t, d, 1, core.Read|core.Write, time.Second)
	dcExpectNow(t, d, 1, core.Read|core.Write, 0) // level: again, at once
	if err := d.Modify(fd, 2, core.Read); err != nil {
		t.Fatalf("Modify(%d, 0x2, r): %v", fd, err)
	}
	dcExpectNow(t, d, 2, core.Read, time.Second)
	if err := d.Modify(fd, 3, 0); err != nil {
		t.Fatalf("Modify(%d, 0x3, 0): %v", fd, err)
	}
	dcExpectNone(t, d, 20*time.Millisecond)
	dcDeregister(t, d, fd)
	dcExpectNone(t, d, 20*time.Millisecond)
}

func dcFdAbove1024(t *testing.T, d core.Driver) {
	// select(2) cannot watch fds at or above FD_SETSIZE (1024 on most
	// systems).
	const above = 1100
	dcNeedFds(t, 2048)
	f := dcNewFds(t)
	a, b := f.pair()
	ha := f.dupAbove(a, above)
	hb := f.dupAbove(b, above+300)
	dcRegister(t, d, ha, 1, core.Read)
	dcRegister(t, d, hb, 2, core.Write)
	dcExpectNow(t, d, 2, core.Write, time.Second)
	if err := d.Modify(hb, 2, 0); err != nil {
		t.Fatalf("Modify(%d): %v", hb, err)
	}
	dcExpectNone(t, d, 20*time.Millisecond)
	dcWrite(t, b, "x")
	dcExpectNow(t, d, 1, core.Read, time.Second)
	dcDeregister(t, d, ha)
	dcDeregister(t, d, hb)
	dcExpectNone(t, d, 20*time.Millisecond)
}
