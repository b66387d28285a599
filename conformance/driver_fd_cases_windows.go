//go:build windows

package conformance

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// dcPlatformFdCases are the driver fd cases of Windows; contractLeftOut
// says which Unix cases cannot be expressed here, and why.
func dcPlatformFdCases() []DriverCase {
	return []DriverCase{
		// In place of "Regular files are always ready, as poll(2) has
		// them": a handle that is not a socket (a pipe's) is refused at
		// Register with an error that names it and matches
		// errors.ErrUnsupported, and leaves nothing registered.
		{"NonSocketIsRefused", dcNonSocketIsRefused},
	}
}

// contractLeftOut names the cases of the contract table that Windows does
// not run, and why.
var contractLeftOut = map[string]string{
	"RegularFileIsAlwaysReady": "the Windows drivers watch sockets only, which NonSocketIsRefused pins instead",
	"FdAbove1024": "no call puts a handle at a chosen value; the thousands of handles of " +
		"TwoThousandSocketpairs run past 1024 anyway, and Winsock's FD_SETSIZE counts sockets, not handle values",
	"FaultEINTRStormWhileBlocked": "a test cannot raise signals at its own process on Windows " +
		"(revolt_windows.go), and Winsock calls are never interrupted",
}

func dcNonSocketIsRefused(t *testing.T, d core.Driver) {
	// A pipe: what Unix code would watch first, and no socket.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := int(r.Fd())
	for _, in := range []core.Interest{core.Read, core.Write, 0} {
		err := d.Register(fd, 1, in)
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Register(%d, %v) of a pipe handle: %v, want an error matching errors.ErrUnsupported", fd, in, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprint(fd)) {
			t.Errorf("Register of a pipe handle: %q does not name handle %d", err, fd)
		}
	}
	if err := d.Deregister(fd); err == nil {
		t.Errorf("Deregister of the refused handle %d succeeded: it was registered", fd)
	}
	dcExpectNone(t, d, 20*time.Millisecond)
}
